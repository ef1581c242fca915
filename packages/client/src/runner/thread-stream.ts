import { abortError, BatonConnectionError } from '../errors.ts';
import { parseErrorBody } from '../http/parse-error.ts';
import { isNetworkFault } from '../http/retry-policy.ts';
import type { Transport } from '../http/transport.ts';
import { parseSse } from '../sse/parse-sse.ts';
import type { MessageResponse, PostMessageBody, QueuedMessage } from '../wire/threads.ts';

/** The HTTP status a native error type stands for, for errors that arrive inside a 200 stream. */
const STATUS_BY_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  conflict_error: 409,
  model_error: 502,
  api_error: 500,
};

/**
 * `POST /v1/threads/{id}/messages` with `stream: true`: text deltas go to `onDelta` as they come,
 * and the call resolves with the `message.completed` body — the same body as without streaming.
 * A stream cut before that is repeated under the same Idempotency-Key: the server finishes the
 * turn anyway and replays its outcome (as plain JSON), so nothing is sent twice.
 */
export async function postMessageStreaming(
  http: Transport,
  threadId: string,
  body: PostMessageBody,
  idempotencyKey: string | undefined,
  signal: AbortSignal | undefined,
  onDelta: (delta: string, messageId: string) => void,
): Promise<MessageResponse | QueuedMessage> {
  const path = `/v1/threads/${encodeURIComponent(threadId)}/messages`;
  const request = { method: 'POST' as const, path, body: { ...body, stream: true }, idempotencyKey, signal };
  for (let attempt = 0; ; attempt++) {
    const open = await http.stream(request);
    // The transport made up a key if none was given; every repeat must carry that same one.
    request.idempotencyKey = open.idempotencyKey;
    try {
      if (!(open.response.headers.get('content-type') ?? '').includes('text/event-stream')) {
        return (await open.response.json()) as MessageResponse | QueuedMessage;
      }
      let completed: MessageResponse | QueuedMessage | null = null;
      let failure: Error | null = null;
      if (open.response.body) {
        for await (const message of parseSse(open.response.body)) {
          if (message.data === '[DONE]') break;
          const data = JSON.parse(message.data) as Record<string, unknown>;
          if (message.event === 'message.delta') {
            const delta = (data.delta as { content?: unknown } | undefined)?.content;
            if (typeof delta === 'string') onDelta(delta, String(data.id));
          } else if (message.event === 'message.completed') {
            completed = data as unknown as MessageResponse | QueuedMessage;
          } else if (message.event === 'error') {
            const type = (data.error as { type?: unknown } | undefined)?.type;
            failure = parseErrorBody(
              STATUS_BY_TYPE[String(type)] ?? 500,
              data,
              open.response.headers.get('x-request-id'),
            );
          }
        }
      }
      if (failure) throw failure;
      if (completed) return completed;
      throw new TypeError('The message stream ended before message.completed.');
    } catch (error) {
      if (signal?.aborted) throw abortError(signal);
      if (!isNetworkFault(error)) throw error;
      if (attempt >= http.settings.retry.maxRetries) {
        throw new BatonConnectionError(
          `POST ${path} (stream) broke off: ${error instanceof Error ? error.message : String(error)}.`,
          { cause: error },
        );
      }
    } finally {
      open.close();
    }
  }
}
