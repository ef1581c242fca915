import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { rawRequest, requestText, type RawResponse } from '../helpers/raw-http.ts';
import { MAX_HEADER_BYTES, MAX_URL_BYTES, PARSER_MAX_HEADER_BYTES } from '../../src/server/request-limits.ts';

const BODY_LIMIT = 4096;
const AUTH = { Authorization: `Bearer ${ADMIN_KEY}` };

/** One face: where its requests go, and what its error body looks like. */
interface Face {
  name: string;
  /** A path with an id segment, under the face's prefix. */
  item: (id: string) => string;
  /** A path that takes a JSON POST. */
  post: string;
  expectError: (response: RawResponse, status: number, code: string) => void;
}

/** Baton's native format and the Responses face's differ in the order OpenAI gives the fields. */
function openAiShaped(keys: string[]) {
  return (response: RawResponse, status: number, code: string) => {
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(Object.keys(response.body)).toEqual(['error']);
    expect(Object.keys(response.body.error)).toEqual(keys);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code, message: expect.any(String) });
  };
}

const FACES: Face[] = [
  {
    name: 'Threads (native)',
    item: (id) => `/v1/threads/${id}`,
    post: '/v1/threads',
    expectError: openAiShaped(['type', 'code', 'message', 'param']),
  },
  {
    name: 'Responses (OpenAI)',
    item: (id) => `/v1/responses/${id}`,
    post: '/v1/responses',
    expectError: openAiShaped(['message', 'type', 'param', 'code']),
  },
  {
    name: 'CES (google.rpc.Status)',
    item: (id) => `/v1/projects/default/locations/global/apps/${id}`,
    post: '/v1/projects/default/locations/global/apps',
    expectError: (response, status, code) => {
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect(response.body).toEqual({
        error: { code: status, message: expect.any(String), status: 'INVALID_ARGUMENT', details: expect.any(Array) },
      });
      expect(response.body.error.details[0]).toMatchObject({ reason: code.toUpperCase(), domain: 'baton' });
    },
  },
  {
    name: 'MCP (JSON-RPC)',
    item: (id) => `/mcp/${id}`,
    post: '/mcp',
    expectError: (response, status, code) => {
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect(response.body).toEqual({
        jsonrpc: '2.0',
        error: {
          code: code === 'invalid_json' ? -32700 : -32600,
          message: expect.any(String),
          data: expect.any(Object),
        },
        id: null,
      });
      expect(response.body.error.data.error.details[0]).toMatchObject({ reason: code.toUpperCase() });
    },
  },
];

/** A request Fastify or Node refuses, the status and code it gets, whatever the face. */
interface Case {
  name: string;
  request: (face: Face) => string;
  status: number;
  code: string;
  /** A route whose path has no id segment (MCP) cannot have one too long. */
  skip?: (face: Face) => boolean;
}

const CASES: Case[] = [
  {
    name: 'malformed percent-encoding in the path',
    request: (face) => requestText('GET', face.item('%E0%A4%A'), AUTH),
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'an id segment longer than 100 characters',
    request: (face) => requestText('GET', face.item('a'.repeat(101)), AUTH),
    status: 414,
    code: 'uri_too_long',
    skip: (face) => face.post === '/mcp',
  },
  {
    name: `a URL over ${MAX_URL_BYTES} bytes (Baton's limit)`,
    request: (face) => requestText('GET', `${face.item('x')}?q=${'a'.repeat(MAX_URL_BYTES)}`, AUTH),
    status: 414,
    code: 'uri_too_long',
  },
  {
    name: `header fields over ${MAX_HEADER_BYTES} bytes (Baton's limit)`,
    request: (face) => requestText('GET', face.item('x'), { ...AUTH, 'X-Padding': 'a'.repeat(MAX_HEADER_BYTES) }),
    status: 431,
    code: 'headers_too_large',
  },
  {
    name: `a request line over ${PARSER_MAX_HEADER_BYTES} bytes (Node's parser refuses it)`,
    request: (face) => requestText('GET', `${face.item('x')}?q=${'a'.repeat(PARSER_MAX_HEADER_BYTES)}`, AUTH),
    status: 414,
    code: 'uri_too_long',
  },
  {
    name: `header fields over ${PARSER_MAX_HEADER_BYTES} bytes (Node's parser refuses them)`,
    request: (face) =>
      requestText('GET', face.item('x'), { ...AUTH, 'X-Padding': 'a'.repeat(PARSER_MAX_HEADER_BYTES) }),
    status: 431,
    code: 'headers_too_large',
  },
  {
    name: 'malformed JSON',
    request: (face) => requestText('POST', face.post, { ...AUTH, 'Content-Type': 'application/json' }, '{"a":'),
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'a body that is not JSON',
    request: (face) => requestText('POST', face.post, { ...AUTH, 'Content-Type': 'text/xml' }, '<a/>'),
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: `a body over the ${BODY_LIMIT}-byte limit`,
    request: (face) =>
      requestText(
        'POST',
        face.post,
        { ...AUTH, 'Content-Type': 'application/json' },
        JSON.stringify({ pad: 'a'.repeat(BODY_LIMIT) }),
      ),
    status: 413,
    code: 'body_too_large',
  },
];

/**
 * Errors raised before a route runs (by Fastify while routing or parsing the body, by Node's HTTP
 * parser) come back in the format of the face the path belongs to, never in Fastify's own shape.
 */
describe("Fastify's and Node's own refusals, in each face's format", () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton({ bodyLimitBytes: BODY_LIMIT });
  });
  afterAll(async () => baton?.close());

  for (const face of FACES) {
    for (const { name, request, status, code, skip } of CASES) {
      it.skipIf(skip?.(face) ?? false)(`${face.name}: ${name} → ${status} ${code}`, async () => {
        const response = await rawRequest(baton.url, request(face));
        face.expectError(response, status, code);
        expect(response.headers['content-type']).toContain('application/json');
      });
    }
  }

  it('a request line Node cannot parse has no path: the native format', async () => {
    const response = await rawRequest(baton.url, 'GARBAGE\r\n\r\n');
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code: 'bad_request' });
    expect(response.body.error.message).toContain('HPE_INVALID_METHOD');
  });

  it('messages say what to fix', async () => {
    const bad = await rawRequest(baton.url, requestText('GET', '/v1/threads/%E0%A4%A', AUTH));
    expect(bad.body.error.message).toContain("'/v1/threads/%E0%A4%A'");
    expect(bad.body.error.message).toContain('percent-encoding');
    const long = await rawRequest(baton.url, requestText('GET', `/v1/threads?q=${'a'.repeat(MAX_URL_BYTES)}`, AUTH));
    expect(long.body.error.message).toContain(`at most ${MAX_URL_BYTES}`);
  });

  it('a request within every limit is served as before', async () => {
    const target = `/healthz?q=${'a'.repeat(MAX_URL_BYTES - 100)}`;
    const response = await rawRequest(
      baton.url,
      requestText('GET', target, { ...AUTH, 'X-Padding': 'a'.repeat(MAX_HEADER_BYTES - 200) }),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it('an error under /mcpx or /v1/responsesx is not the MCP or Responses format', async () => {
    for (const path of ['/mcpx', '/v1/responsesx']) {
      const response = await rawRequest(baton.url, requestText('GET', path, AUTH));
      expect(response.status).toBe(404);
      expect(Object.keys(response.body.error)).toEqual(['type', 'code', 'message', 'param']);
    }
  });
});
