import { z } from 'zod';

/**
 * The request bodies of the Responses face (Open Responses `CreateResponseBody`, OpenAI-compatible).
 * Objects are strict so a misspelt field is a 400 naming it, not a silently ignored setting.
 */

const text = z.string().max(1_000_000);

const inputText = z.object({ type: z.literal('input_text'), text }).strict();
const inputImage = z
  .object({
    type: z.literal('input_image'),
    image_url: z.string().max(20_000_000).nullish(),
    file_id: z.string().nullish(),
    detail: z.enum(['low', 'high', 'auto']).nullish(),
  })
  .strict();
const inputFile = z
  .object({
    type: z.literal('input_file'),
    file_data: z.string().max(20_000_000).nullish(),
    file_url: z.string().max(4_000).nullish(),
    file_id: z.string().nullish(),
    filename: z.string().max(512).nullish(),
  })
  .strict();
const outputText = z
  .object({
    type: z.literal('output_text'),
    text,
    annotations: z.array(z.unknown()).optional(),
    logprobs: z.array(z.unknown()).optional(),
  })
  .strict();
const refusal = z.object({ type: z.literal('refusal'), refusal: text }).strict();

export const contentPartWire = z.discriminatedUnion('type', [inputText, inputImage, inputFile, outputText, refusal]);
export type ContentPartWire = z.infer<typeof contentPartWire>;

const itemStatus = z.enum(['in_progress', 'completed', 'incomplete']).optional();

const messageItem = z
  .object({
    type: z.literal('message').optional(),
    id: z.string().max(200).optional(),
    status: itemStatus,
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.union([text, z.array(contentPartWire)]),
    phase: z.enum(['commentary', 'final_answer']).nullish(),
  })
  .strict();
const functionCallItem = z
  .object({
    type: z.literal('function_call'),
    id: z.string().max(200).optional(),
    status: itemStatus,
    call_id: z.string().min(1).max(200),
    name: z.string().min(1).max(64),
    arguments: z.string().max(1_000_000),
  })
  .strict();
const functionCallOutputItem = z
  .object({
    type: z.literal('function_call_output'),
    id: z.string().max(200).optional(),
    status: itemStatus,
    call_id: z.string().min(1).max(200),
    output: z.union([text, z.array(z.discriminatedUnion('type', [inputText, inputImage, inputFile]))]),
  })
  .strict();
/**
 * Baton's own items for calls it executed (see item-views.ts), accepted back as history so a
 * client that replays `output` verbatim (stateless, without previous_response_id) keeps working.
 */
const batonToolCallItem = z
  .object({
    type: z.literal('baton:tool_call'),
    id: z.string().max(200).optional(),
    status: itemStatus,
    call_id: z.string().min(1).max(200),
    name: z.string().min(1).max(64),
    arguments: z.string().max(1_000_000),
    executor: z.enum(['server', 'fake']).optional(),
    approval: z
      .object({ status: z.string().max(32), decide_url: z.string().max(400).nullable() })
      .strict()
      .nullish(),
  })
  .strict();
const batonToolResultItem = functionCallOutputItem
  .extend({ type: z.literal('baton:tool_result'), is_error: z.boolean().optional() })
  .strict();
const reasoningItem = z
  .object({
    type: z.literal('reasoning'),
    id: z.string().max(200).optional(),
    status: itemStatus,
    summary: z.array(z.unknown()),
    content: z.array(z.unknown()).nullish(),
    encrypted_content: z.string().nullish(),
  })
  .strict();
const compactionItem = z
  .object({
    type: z.literal('compaction'),
    id: z.string().max(200).optional(),
    encrypted_content: z.string().max(20_000_000),
    created_by: z.string().optional(),
  })
  .strict();
const itemReference = z
  .object({ type: z.literal('item_reference').optional(), id: z.string().min(1).max(200) })
  .strict();

/** One input item. Messages may omit `type`, as OpenAI accepts; a bare `{id}` is an item reference. */
export const inputItemWire = z.union([
  z.discriminatedUnion('type', [
    functionCallItem,
    functionCallOutputItem,
    batonToolCallItem,
    batonToolResultItem,
    reasoningItem,
    compactionItem,
  ]),
  messageItem,
  itemReference,
]);
export type InputItemWire = z.infer<typeof inputItemWire>;

export const MAX_INPUT_ITEMS = 2_048;

export const functionToolWire = z
  .object({
    type: z.literal('function'),
    name: z.string(),
    description: z.string().max(10_000).nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
    /** Baton: `worker` offers the tool's calls to tool workers (docs/tool-workers.md). */
    executor: z.enum(['client', 'worker']).optional(),
    max_attempts: z
      .number()
      .int('max_attempts must be a whole number')
      .min(1, 'max_attempts must be at least 1')
      .max(100, 'max_attempts must be at most 100')
      .optional(),
  })
  .strict();
export type FunctionToolWire = z.infer<typeof functionToolWire>;

const namedFunction = z.object({ type: z.literal('function'), name: z.string().min(1) }).strict();
export const toolChoiceWire = z.union([
  z.enum(['none', 'auto', 'required']),
  namedFunction,
  z
    .object({
      type: z.literal('allowed_tools'),
      tools: z.array(namedFunction).min(1, 'allowed_tools needs at least one tool'),
      mode: z.enum(['auto', 'required']).optional(),
    })
    .strict(),
]);
export type ToolChoiceWire = z.infer<typeof toolChoiceWire>;

const textFormat = z.union([
  z.object({ type: z.literal('text') }).strict(),
  z.object({ type: z.literal('json_object') }).strict(),
  z
    .object({
      type: z.literal('json_schema'),
      name: z.string().min(1).max(64),
      schema: z.record(z.string(), z.unknown()),
      description: z.string().nullish(),
      strict: z.boolean().nullish(),
    })
    .strict(),
]);

export const metadataWire = z
  .record(
    z.string().max(64, 'metadata keys are at most 64 characters'),
    z.string().max(512, 'metadata values are at most 512 characters'),
  )
  .refine((value) => Object.keys(value).length <= 16, 'metadata holds at most 16 keys');

export const createResponseBody = z
  .object({
    model: z.string().min(1).max(256).nullish(),
    input: z
      .union([text, z.array(inputItemWire).max(MAX_INPUT_ITEMS, `input holds at most ${MAX_INPUT_ITEMS} items`)])
      .nullish(),
    instructions: text.nullish(),
    tools: z.array(z.unknown()).max(128, 'tools holds at most 128 tools').nullish(),
    tool_choice: toolChoiceWire.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    max_tool_calls: z.number().int().min(1).nullish(),
    previous_response_id: z.string().min(1).max(200).nullish(),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_obfuscation: z.boolean().optional() }).strict().nullish(),
    store: z.boolean().nullish(),
    background: z.boolean().nullish(),
    metadata: metadataWire.nullish(),
    text: z
      .object({ format: textFormat.optional(), verbosity: z.enum(['low', 'medium', 'high']).nullish() })
      .strict()
      .nullish(),
    reasoning: z
      .object({
        effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
        summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
      })
      .strict()
      .nullish(),
    include: z.array(z.enum(['reasoning.encrypted_content', 'message.output_text.logprobs'])).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    presence_penalty: z.number().min(-2).max(2).nullish(),
    frequency_penalty: z.number().min(-2).max(2).nullish(),
    top_logprobs: z.number().int().min(0).max(20).nullish(),
    max_output_tokens: z.number().int().min(16).nullish(),
    truncation: z.enum(['auto', 'disabled']).nullish(),
    service_tier: z.enum(['auto', 'default', 'flex', 'priority']).nullish(),
    safety_identifier: z.string().max(64).nullish(),
    prompt_cache_key: z.string().max(64).nullish(),
    /** Deprecated by OpenAI in favour of safety_identifier; accepted and ignored. */
    user: z.string().max(256).nullish(),
  })
  .strict();
export type CreateResponseBody = z.infer<typeof createResponseBody>;

export const inputItemsQuery = z
  .object({
    limit: z.coerce.number().int().min(1, 'limit must be at least 1').max(100, 'limit must be at most 100').optional(),
    order: z.enum(['asc', 'desc']).optional(),
    after: z.string().max(200).optional(),
    include: z.union([z.string(), z.array(z.string())]).optional(),
  })
  .strict();

/**
 * `GET /v1/responses/{id}`'s query: `include` as on create; `stream=true` replays the response's
 * events, after `starting_after` when given. Other keys are ignored, as they always were here.
 */
export const retrieveQuery = z.object({
  include: z.union([z.string(), z.array(z.string())]).optional(),
  'include[]': z.union([z.string(), z.array(z.string())]).optional(),
  stream: z.enum(['true', 'false'], { error: 'stream must be true or false' }).optional(),
  starting_after: z
    .string({ error: 'starting_after must be given once' })
    .regex(/^(0|[1-9][0-9]{0,14})$/, {
      error: 'starting_after must be a whole number of 0 or more: the sequence_number of an event',
    })
    .transform(Number)
    .optional(),
  /** OpenAI pads deltas against side channels; Baton sends none, so there is nothing to turn off. */
  include_obfuscation: z.enum(['true', 'false']).optional(),
});
export type RetrieveQuery = z.infer<typeof retrieveQuery>;

export const compactRequestBody = z
  .object({
    model: z.string({ error: 'model is required' }).min(1).max(256),
    input: createResponseBody.shape.input,
    instructions: text.nullish(),
    previous_response_id: z.string().min(1).max(200).nullish(),
    prompt_cache_key: z.string().max(64).nullish(),
  })
  .strict();
export type CompactRequestBody = z.infer<typeof compactRequestBody>;
