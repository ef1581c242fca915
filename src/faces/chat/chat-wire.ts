import { z } from 'zod';

/**
 * The request body of the Chat Completions face (OpenAI's `POST /v1/chat/completions`). Objects
 * are strict, as OpenAI's are, so a misspelt field is a 400 naming it rather than a setting
 * silently ignored. Messages and tools are read one by one (chat-messages.ts, chat-tools.ts), so
 * an error names the exact message and field.
 */

const text = z.string().max(1_000_000);

export const MAX_MESSAGES = 2_048;
export const MAX_TOOLS = 128;

const textPart = z.object({ type: z.literal('text'), text }).strict();
const imagePart = z
  .object({
    type: z.literal('image_url'),
    image_url: z
      .object({ url: z.string().max(20_000_000), detail: z.enum(['auto', 'low', 'high']).optional() })
      .strict(),
  })
  .strict();
const audioPart = z
  .object({
    type: z.literal('input_audio'),
    input_audio: z.object({ data: z.string(), format: z.string() }).strict(),
  })
  .strict();
const filePart = z
  .object({
    type: z.literal('file'),
    file: z
      .object({
        file_data: z.string().max(20_000_000).optional(),
        file_id: z.string().max(200).optional(),
        filename: z.string().max(512).optional(),
      })
      .strict(),
  })
  .strict();
const refusalPart = z.object({ type: z.literal('refusal'), refusal: text }).strict();

export const userPartWire = z.discriminatedUnion('type', [textPart, imagePart, audioPart, filePart]);
export type UserPartWire = z.infer<typeof userPartWire>;

const name = z.string().max(256).optional();

export const systemMessageWire = z
  .object({ role: z.enum(['system', 'developer']), content: z.union([text, z.array(textPart)]), name })
  .strict();
export const userMessageWire = z
  .object({ role: z.literal('user'), content: z.union([text, z.array(userPartWire)]), name })
  .strict();
export const toolCallWire = z
  .object({
    id: z.string().min(1, 'a tool call id cannot be empty').max(200),
    type: z.literal('function'),
    function: z
      .object({
        name: z.string().min(1).max(64),
        arguments: z.string().max(1_000_000),
        /** Added by the `openai` client's parse helpers; the arguments text is what counts. */
        parsed_arguments: z.unknown().optional(),
      })
      .strict(),
  })
  .strict();
export const assistantMessageWire = z
  .object({
    role: z.literal('assistant'),
    content: z.union([text, z.array(z.discriminatedUnion('type', [textPart, refusalPart]))]).nullish(),
    refusal: text.nullish(),
    name,
    tool_calls: z.array(toolCallWire).max(MAX_TOOLS).nullish(),
    // What clients echo back when they push a reply's message as they got it: accepted, unused.
    /** Reasoning as OpenAI-compatible servers return it: another system's, so context Baton drops. */
    reasoning_content: text.nullish(),
    annotations: z.array(z.unknown()).optional(),
    /** The `openai` client's parse helpers add the parsed content. */
    parsed: z.unknown().optional(),
    audio: z.null().optional(),
    function_call: z.null().optional(),
  })
  .strict();
export const toolMessageWire = z
  .object({
    role: z.literal('tool'),
    content: z.union([text, z.array(textPart)]),
    tool_call_id: z.string().min(1, 'tool_call_id cannot be empty').max(200),
    /** The tool's name, which LangChain sends on tool messages (the call already names it). */
    name,
  })
  .strict();

export type SystemMessageWire = z.infer<typeof systemMessageWire>;
export type UserMessageWire = z.infer<typeof userMessageWire>;
export type AssistantMessageWire = z.infer<typeof assistantMessageWire>;
export type ToolMessageWire = z.infer<typeof toolMessageWire>;
export type MessageWire = SystemMessageWire | UserMessageWire | AssistantMessageWire | ToolMessageWire;

export const functionToolWire = z
  .object({
    type: z.literal('function'),
    function: z
      .object({
        name: z.string(),
        description: z.string().max(10_000).nullish(),
        parameters: z.record(z.string(), z.unknown()).nullish(),
        strict: z.boolean().nullish(),
      })
      .strict(),
  })
  .strict();
export type FunctionToolWire = z.infer<typeof functionToolWire>;

const namedFunction = z
  .object({ type: z.literal('function'), function: z.object({ name: z.string().min(1).max(64) }).strict() })
  .strict();
export const toolChoiceWire = z.union([
  z.enum(['none', 'auto', 'required']),
  namedFunction,
  z
    .object({
      type: z.literal('allowed_tools'),
      allowed_tools: z
        .object({
          mode: z.enum(['auto', 'required']),
          tools: z.array(namedFunction).min(1, 'allowed_tools.tools needs at least one tool'),
        })
        .strict(),
    })
    .strict(),
]);
export type ToolChoiceWire = z.infer<typeof toolChoiceWire>;

const responseFormatWire = z.union([
  z.object({ type: z.literal('text') }).strict(),
  z.object({ type: z.literal('json_object') }).strict(),
  z
    .object({
      type: z.literal('json_schema'),
      json_schema: z
        .object({
          name: z.string().min(1).max(64),
          description: z.string().max(10_000).optional(),
          schema: z.record(z.string(), z.unknown()).optional(),
          strict: z.boolean().nullish(),
        })
        .strict(),
    })
    .strict(),
]);
export type ResponseFormatWire = z.infer<typeof responseFormatWire>;

export const metadataWire = z
  .record(
    z.string().max(64, 'metadata keys are at most 64 characters'),
    z.string().max(512, 'metadata values are at most 512 characters'),
  )
  .refine((value) => Object.keys(value).length <= 16, 'metadata holds at most 16 keys');

export const chatCompletionBody = z
  .object({
    model: z.string({ error: 'model is required: name an agent of the app or a provider model' }).min(1).max(256),
    messages: z
      .array(z.unknown(), { error: 'messages is required: an array of messages' })
      .min(1, 'messages needs at least one message')
      .max(MAX_MESSAGES, `messages holds at most ${MAX_MESSAGES} messages`),
    tools: z.array(z.unknown()).max(MAX_TOOLS, `tools holds at most ${MAX_TOOLS} tools`).nullish(),
    tool_choice: toolChoiceWire.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    max_tokens: z.number().int().min(1).nullish(),
    max_completion_tokens: z.number().int().min(1).nullish(),
    response_format: responseFormatWire.nullish(),
    reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
    stream: z.boolean().nullish(),
    stream_options: z
      .object({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() })
      .strict()
      .nullish(),
    metadata: metadataWire.nullish(),
    user: z.string().max(256).nullish(),
    /** Only one choice: a run of an agent has one outcome. */
    n: z.literal(1, { error: 'n must be 1: an agent run has one outcome' }).nullish(),
    /** Baton keeps every conversation (the ledger and the console show its calls); accepted for compatibility. */
    store: z.boolean().nullish(),
    // Sampling and routing hints with no effect on an agent run: accepted, as OpenAI's clients send them.
    frequency_penalty: z.number().min(-2).max(2).nullish(),
    presence_penalty: z.number().min(-2).max(2).nullish(),
    seed: z.number().int().nullish(),
    logit_bias: z.record(z.string(), z.number()).nullish(),
    service_tier: z.enum(['auto', 'default', 'flex', 'scale', 'priority']).nullish(),
    prompt_cache_key: z.string().max(256).nullish(),
    prompt_cache_retention: z.string().max(32).nullish(),
    safety_identifier: z.string().max(256).nullish(),
    verbosity: z.enum(['low', 'medium', 'high']).nullish(),
    modalities: z.array(z.literal('text', { error: 'Baton answers in text only' })).nullish(),
    logprobs: z.literal(false, { error: 'logprobs is not supported: leave it out or set it to false' }).nullish(),
    top_logprobs: z.literal(0, { error: 'top_logprobs is not supported: leave it out' }).nullish(),
    // Fields Baton cannot honour; refused with what to do instead (chat-request.ts).
    stop: z.unknown().optional(),
    functions: z.unknown().optional(),
    function_call: z.unknown().optional(),
    audio: z.unknown().optional(),
    prediction: z.unknown().optional(),
    web_search_options: z.unknown().optional(),
  })
  .strict();
export type ChatCompletionBody = z.infer<typeof chatCompletionBody>;
