import { z } from 'zod';
import type { ApiErrorFormat } from '../kit/api-operation.ts';

/** What `/mcp` answers when a request fails before the MCP server sees it (`renderJsonRpcHttpError`). */
export const JSON_RPC_ERRORS: ApiErrorFormat = {
  name: 'JsonRpcError',
  description:
    'A JSON-RPC 2.0 error with `id: null`; `error.data` is the google.rpc.Status body of the same error. Errors of ' +
    'a tool call are tool results with `isError: true`, not HTTP errors.',
  schema: z.object({
    jsonrpc: z.literal('2.0'),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
    id: z.null(),
  }),
};
