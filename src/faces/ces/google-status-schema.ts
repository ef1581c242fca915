import { z } from 'zod';
import type { ApiErrorFormat } from '../kit/api-operation.ts';

/** The `google.rpc.Status` JSON body the CES face answers errors with (`googleErrorBody`). */
export const GOOGLE_RPC_ERRORS: ApiErrorFormat = {
  name: 'GoogleRpcStatus',
  description:
    'A google.rpc.Status, as Google APIs send it: `details` holds an ErrorInfo whose `reason` is the upper-cased ' +
    'code of docs/errors.md and, for a bad field, a BadRequest naming it.',
  schema: z.object({
    error: z.object({
      code: z.number().int().describe('The HTTP status.'),
      message: z.string(),
      status: z.string().describe('The google.rpc.Code name: INVALID_ARGUMENT, NOT_FOUND, ABORTED, …'),
      details: z.array(
        z.looseObject({
          '@type': z
            .string()
            .describe('type.googleapis.com/google.rpc.ErrorInfo or type.googleapis.com/google.rpc.BadRequest.'),
        }),
      ),
    }),
  }),
};
