/**
 * The raw HTTP client of our Open Responses compliance mirror (test/responses/compliance*.test.ts),
 * shaped like the suite's: `fetch` with `Authorization: Bearer <key>` against `<base>/v1/responses`,
 * every JSON response checked against the contract schema, every stream read chunk by chunk the way
 * the suite's fragile parser sees it. Plus the suite's weather tool and small assertions on outputs.
 */
import { expect } from 'vitest';
import { checkResponse, checkStream, parseSseLikeSuite } from './open-responses-contract.ts';

export const MODEL = 'scripted:auto';

export type Json = Record<string, any>;

/** The suite's weather tool: `get_weather(location)`, without `strict` (the response must echo null). */
export const getWeather = {
  type: 'function',
  name: 'get_weather',
  description: 'Get the current weather for a location',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } },
    required: ['location'],
  },
};

/** A raw HTTP client shaped like the suite's: base URL ending in /v1, bearer key, JSON bodies. */
export class SuiteClient {
  constructor(
    private readonly base: string,
    private readonly key: string,
  ) {}

  private send(path: string, body: unknown, method = 'POST'): Promise<Response> {
    return fetch(`${this.base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${this.key}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  async json(path: string, body?: unknown, method = 'POST'): Promise<{ status: number; body: Json }> {
    const response = await this.send(path, body, method);
    const text = await response.text();
    let parsed: Json;
    try {
      parsed = JSON.parse(text) as Json;
    } catch {
      throw new Error(`${method} ${path}: HTTP ${response.status}, body is not JSON: ${text.slice(0, 200)}`);
    }
    return { status: response.status, body: parsed };
  }

  /** POST /responses, non-streaming: HTTP 200 and a schema-valid ResponseResource, or the test fails here. */
  async create(body: Json): Promise<Json> {
    const { status, body: resource } = await this.json('/responses', body);
    expect(status, JSON.stringify(resource)).toBe(200);
    expect(checkResponse(resource)).toEqual([]);
    return resource;
  }

  async get(id: string): Promise<Json> {
    const { status, body } = await this.json(`/responses/${id}`, undefined, 'GET');
    expect(status, JSON.stringify(body)).toBe(200);
    return body;
  }

  /** POST /responses with stream:true, the body read as the network delivers it: one decoded string per chunk. */
  async stream(body: Json): Promise<{ status: number; contentType: string; chunks: string[] }> {
    const response = await this.send('/responses', { ...body, stream: true });
    const chunks: string[] = [];
    if (!response.body) throw new Error('streaming response has no body');
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      if (text !== '') chunks.push(text);
    }
    const rest = decoder.decode();
    if (rest !== '') chunks.push(rest);
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', chunks };
  }

  /**
   * A stream that passes everything the suite checks and more: SSE content type, framing as its
   * per-chunk parser sees it, a `[DONE]` terminator, and the event contract. Returns the events and
   * the response of the terminal event.
   */
  async validStream(body: Json): Promise<{ events: Json[]; final: Json; terminal: string }> {
    const { status, contentType, chunks } = await this.stream(body);
    expect(status, chunks.join('').slice(0, 500)).toBe(200);
    expect(contentType.startsWith('text/event-stream'), contentType).toBe(true);
    const { events, sawDone, problems } = parseSseLikeSuite(chunks);
    expect(problems).toEqual([]);
    expect(sawDone).toBe(true);
    expect(checkStream(events)).toEqual([]);
    const typed = events as Json[];
    const last = typed[typed.length - 1];
    if (!last || !('response' in last)) throw new Error('stream has no terminal response event');
    expect(checkResponse(last['response'])).toEqual([]);
    return { events: typed, final: last['response'] as Json, terminal: String(last['type']) };
  }
}

export function expectCompletedWithOutput(resource: Json): void {
  expect(resource['status']).toBe('completed');
  expect(resource['output'].length).toBeGreaterThan(0);
}

export function functionCalls(resource: Json): Json[] {
  return (resource['output'] as Json[]).filter((item) => item['type'] === 'function_call');
}
