import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { startFakeHttpServer } from './fakes/fake-http-server.ts';

/**
 * A local stand-in for an OpenAI-compatible Chat Completions API (`POST /v1/chat/completions`),
 * listening on 127.0.0.1 at a random port. Tests decide every answer through `handler`, and every
 * request is recorded so they can assert what the SDK actually sent. Never reaches a real API.
 *
 * ```ts
 * const server = await startFakeOpenAIServer(() => jsonReply(chatCompletion({ text: 'Hi' })));
 * // createOpenAICompatible({ name: 'x', baseURL: server.baseURL }) …
 * await server.close();
 * ```
 */

export interface FakeOpenAIRequest {
  readonly method: string;
  /** Path including the query string, e.g. `/v1/chat/completions`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when the body was empty or not JSON). */
  readonly body: any;
  /** 0-based position of this request among all requests the server received. */
  readonly index: number;
}

export type FakeOpenAIReply =
  | {
      readonly kind: 'json';
      readonly status?: number;
      readonly body: unknown;
      readonly headers?: Record<string, string>;
    }
  /** Server-sent events: one `data: <json>` line per event, then `data: [DONE]`. */
  | { readonly kind: 'sse'; readonly events: readonly unknown[]; readonly headers?: Record<string, string> };

export type FakeOpenAIHandler = (request: FakeOpenAIRequest) => FakeOpenAIReply | Promise<FakeOpenAIReply>;

export interface FakeOpenAIServer {
  /** Base URL to give a provider, ending in `/v1`. */
  readonly baseURL: string;
  /** Every request received, in order (including ones answered with errors). */
  readonly requests: FakeOpenAIRequest[];
  close(): Promise<void>;
}

export async function startFakeOpenAIServer(handler: FakeOpenAIHandler): Promise<FakeOpenAIServer> {
  const requests: FakeOpenAIRequest[] = [];
  const http = await startFakeHttpServer((recorded, _raw, _req, res) => {
    const request: FakeOpenAIRequest = { ...recorded, index: requests.length };
    requests.push(request);
    if (request.method !== 'POST' || request.path.split('?')[0] !== '/v1/chat/completions') {
      writeJson(res, 404, {
        error: { message: `no route for ${request.method} ${request.path}`, type: 'not_found' },
      });
      return;
    }
    Promise.resolve()
      .then(() => handler(request))
      .then((reply) =>
        reply.kind === 'json' ? writeJson(res, reply.status ?? 200, reply.body, reply.headers) : writeSse(res, reply),
      )
      .catch((error: unknown) =>
        writeJson(res, 500, { error: { message: `fake server handler failed: ${String(error)}` } }),
      );
  });
  return { baseURL: `${http.origin}/v1`, requests, close: () => http.close() };
}

function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function writeSse(res: ServerResponse, reply: Extract<FakeOpenAIReply, { kind: 'sse' }>): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
  for (const event of reply.events) {
    res.write(`data: ${JSON.stringify(event)}\n\n`);
    // Yield between events so the client really receives the stream in several network reads.
    await new Promise((resolve) => setImmediate(resolve));
  }
  res.end('data: [DONE]\n\n');
}

// ---- Helpers to build OpenAI-shaped answers -------------------------------------------------

export interface FakeToolCall {
  readonly id: string;
  readonly name: string;
  /** Arguments object; sent JSON-encoded, as the API does. */
  readonly arguments: Record<string, unknown>;
}

export interface FakeAnswer {
  readonly model?: string;
  readonly text?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  readonly usage?: { prompt_tokens: number; completion_tokens: number };
}

export function jsonReply(body: unknown, status = 200, headers?: Record<string, string>): FakeOpenAIReply {
  return headers === undefined ? { kind: 'json', status, body } : { kind: 'json', status, body, headers };
}

export function errorReply(status: number, message: string, headers?: Record<string, string>): FakeOpenAIReply {
  return jsonReply({ error: { message, type: 'server_error', code: null } }, status, headers);
}

/** A non-streaming `chat.completion` body. */
export function chatCompletion(answer: FakeAnswer): unknown {
  const usage = answer.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  const toolCalls = answer.toolCalls ?? [];
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: answer.model ?? 'test-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.text ?? null,
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                })),
              }
            : {}),
        },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/**
 * The `chat.completion.chunk` events of a streamed answer: text split by words, each tool call as
 * a first delta with id and name followed by argument pieces (as OpenAI streams them), a finish
 * chunk, and a usage chunk (sent when `stream_options.include_usage` is on).
 */
export function chatCompletionChunks(answer: FakeAnswer): unknown[] {
  const model = answer.model ?? 'test-model';
  const usage = answer.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  const chunk = (delta: unknown, finishReason: string | null = null): unknown => ({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of answer.text?.match(/\s*\S+/g) ?? []) events.push(chunk({ content: piece }));
  (answer.toolCalls ?? []).forEach((call, index) => {
    events.push(
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }),
    );
    const json = JSON.stringify(call.arguments);
    const size = Math.max(1, Math.ceil(json.length / 3));
    for (let offset = 0; offset < json.length; offset += size) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: json.slice(offset, offset + size) } }] }));
    }
  });
  events.push(chunk({}, (answer.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop'));
  events.push({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  });
  return events;
}
