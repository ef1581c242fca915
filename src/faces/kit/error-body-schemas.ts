import { z } from 'zod';
import type { ApiErrorFormat } from './api-operation.ts';

/**
 * The error bodies of Baton's native API (`nativeErrorBody`) and of the OpenAI-compatible faces
 * (Responses, Chat Completions), as the API document shows them. Every `code` is one of the error
 * catalogue's (docs/errors.md says what each means and what to do).
 */

const param = z
  .string()
  .nullable()
  .describe('The request field at fault, as the request spells it (`content[0].tool_call_id`), or null.');

/** `{error:{type,code,message,param,…}}`: Threads, the ledger, agents, apps and keys. */
export const NATIVE_ERRORS: ApiErrorFormat = {
  name: 'NativeError',
  description:
    "Baton's native error: `code` names the rule (docs/errors.md), `message` says what to do; ids involved " +
    '(e.g. `pending_tool_call_ids`) sit beside them.',
  schema: z.object({
    error: z.looseObject({
      type: z
        .string()
        .describe(
          'invalid_request_error, authentication_error, permission_error, not_found_error, conflict_error, ' +
            'rate_limit_error, model_error or api_error.',
        ),
      code: z.string().describe('The error code from docs/errors.md, e.g. `thread_busy`.'),
      message: z.string(),
      param,
    }),
  }),
};

/** OpenAI's `{error:{message,type,param,code}}`, which the `openai` client raises as its own errors. */
export const OPENAI_ERRORS: ApiErrorFormat = {
  name: 'OpenAIError',
  description: "OpenAI's error format, so OpenAI clients raise their usual exceptions; `code` is from docs/errors.md.",
  schema: z.object({
    error: z.looseObject({
      message: z.string(),
      type: z.string().describe('invalid_request_error, authentication_error, rate_limit_error, server_error, …'),
      param,
      code: z.string().nullable(),
    }),
  }),
};
