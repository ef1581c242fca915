import { z } from 'zod';
import type { ApiOperation } from '../kit/api-operation.ts';
import { OPENAI_ERRORS } from '../kit/error-body-schemas.ts';
import { chatCompletionSchema, modelSchema } from './chat-view-schemas.ts';
import {
  assistantMessageWire,
  chatCompletionBody,
  functionToolWire,
  MAX_MESSAGES,
  MAX_TOOLS,
  systemMessageWire,
  toolMessageWire,
  userMessageWire,
} from './chat-wire.ts';

/**
 * The request as the document shows it: `chatCompletionBody` with the messages and tools it reads
 * one by one (chat-messages.ts, chat-request.ts) spelt out, so a reader sees their shapes.
 */
const documentedBody = chatCompletionBody
  .extend({
    messages: z
      .array(z.union([systemMessageWire, userMessageWire, assistantMessageWire, toolMessageWire]))
      .min(1)
      .max(MAX_MESSAGES),
    tools: z.array(functionToolWire).max(MAX_TOOLS).nullish(),
  })
  .meta({ id: 'ChatCompletionRequest' });

const OPENAI_CHAT = 'https://platform.openai.com/docs/api-reference/chat';

/** `/v1/chat/completions` and `/v1/models` (chat-routes.ts, model-routes.ts), for the API document. */
export const CHAT_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'POST',
    route: '/v1/chat/completions',
    operationId: 'createChatCompletion',
    summary: 'Create a chat completion',
    description:
      "OpenAI's Chat Completions over a Baton agent (`model`: an agent of the app, or a provider model). A reply " +
      'with `finish_reason: "tool_calls"` paused the run; send the transcript again with one `tool` message per call ' +
      'and the run resumes from the stored results (nothing is re-run).',
    tag: 'Chat Completions',
    body: { schema: documentedBody },
    responses: {
      200: {
        description: 'The completion.',
        schema: chatCompletionSchema,
        eventStream: 'With `stream: true`: `chat.completion.chunk` objects as `data:` frames, then `data: [DONE]`.',
      },
    },
    errors: OPENAI_ERRORS,
    externalDocs: { url: OPENAI_CHAT, description: "OpenAI's Chat Completions reference" },
  },
  {
    method: 'GET',
    route: '/v1/models',
    operationId: 'listModels',
    summary: 'List models',
    description: "The app's agents, then the provider models they run on: what a request may name as `model`.",
    tag: 'Chat Completions',
    responses: {
      200: {
        description: 'The models.',
        schema: z.object({ object: z.literal('list'), data: z.array(modelSchema) }),
      },
    },
    errors: OPENAI_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/models/*',
    path: '/v1/models/{model}',
    operationId: 'getModel',
    summary: 'Get a model',
    tag: 'Chat Completions',
    pathParams: { model: 'An id from the list; provider model ids may hold `/` (`ollama:library/llama3`).' },
    responses: { 200: { description: 'The model.', schema: modelSchema } },
    errors: OPENAI_ERRORS,
  },
];
