import { describe, expect, it } from 'vitest';
import type { OpenApiOperationTool } from '../../../src/tools/openapi/openapi-operations.ts';
import { toToolOutput } from '../../../src/tools/openapi/openapi-response.ts';
import type { IncomingResponse, JsonObject } from '../../../src/tools/openapi/openapi-types.ts';

const PET: JsonObject = {
  allOf: [
    { type: 'object', required: ['name'], properties: { name: { type: 'string' }, tag: { type: 'string' } } },
    {
      type: 'object',
      properties: { id: { type: 'integer' }, owner: { type: 'object', properties: { name: { type: 'string' } } } },
    },
  ],
};
const operation: Pick<OpenApiOperationTool, 'responses'> = {
  responses: {
    '200': { description: 'pets', content: { 'application/json': { schema: { type: 'array', items: PET } } } },
    '2XX': {
      description: 'other',
      content: { 'application/json': { schema: { type: 'object', properties: { done: { type: 'boolean' } } } } },
    },
    default: {
      description: 'error',
      content: { 'application/json': { schema: { type: 'object', properties: { code: { type: 'integer' } } } } },
    },
  },
};

function response(status: number, body: string | Buffer, contentType?: string, truncated = false): IncomingResponse {
  return {
    status,
    headers: contentType === undefined ? {} : { 'Content-Type': contentType },
    body: Buffer.isBuffer(body) ? body : Buffer.from(body),
    truncated,
  };
}

const MAX = 1_000;

describe('toToolOutput', () => {
  it('returns 2xx JSON compactly', () => {
    const output = toToolOutput(
      response(200, '[\n  {"id": 1, "name": "Rex", "secret": "s"}\n]', 'application/json; charset=utf-8'),
      operation,
      { maxBytes: MAX },
    );
    expect(output).toEqual({ isError: false, text: '[{"id":1,"name":"Rex","secret":"s"}]' });
  });

  it('drops fields the response schema does not describe with ignoreUnknownFields, through allOf and nesting', () => {
    const body = JSON.stringify([{ id: 1, name: 'Rex', secret: 's', owner: { name: 'Ann', ssn: '123' } }]);
    expect(
      toToolOutput(response(200, body, 'application/json'), operation, { maxBytes: MAX, ignoreUnknownFields: true })
        .text,
    ).toBe('[{"id":1,"name":"Rex","owner":{"name":"Ann"}}]');
    // The 2XX range applies to a 201.
    expect(
      toToolOutput(response(201, '{"done":true,"debug":"x"}', 'application/json'), operation, {
        maxBytes: MAX,
        ignoreUnknownFields: true,
      }).text,
    ).toBe('{"done":true}');
    expect(
      toToolOutput(response(200, body, 'application/json'), operation, { maxBytes: MAX, ignoreUnknownFields: false })
        .text,
    ).toContain('ssn');
  });

  it('passes text through and describes binary content', () => {
    expect(toToolOutput(response(200, 'plain words', 'text/plain'), operation, { maxBytes: MAX })).toEqual({
      isError: false,
      text: 'plain words',
    });
    expect(toToolOutput(response(200, Buffer.alloc(1234, 7), 'image/png'), operation, { maxBytes: 10_000 })).toEqual({
      isError: false,
      text: '[binary response: image/png, 1234 bytes]',
    });
    expect(toToolOutput(response(200, Buffer.from([0x89, 0, 1, 2])), operation, { maxBytes: MAX }).text).toBe(
      '[binary response: unknown type, 4 bytes]',
    );
  });

  it('ends a truncated body with a marker, whether send cut it or it exceeds the cap', () => {
    const big = JSON.stringify({ items: 'x'.repeat(5_000) });
    const cut = toToolOutput(response(200, big, 'application/json'), operation, { maxBytes: 100 });
    expect(cut.isError).toBe(false);
    expect(cut.text).toBe(`${big.slice(0, 100)}… [truncated: response larger than 100 bytes]`);
    // Cut in the middle of a two-byte character: no replacement character before the marker.
    const halfCharacter = Buffer.concat([Buffer.from('é'.repeat(49)), Buffer.from([0xc3])]);
    const bySend = toToolOutput(response(200, halfCharacter, 'text/plain', true), operation, { maxBytes: 100 });
    expect(bySend.text).toBe(`${'é'.repeat(49)}… [truncated: response larger than 100 bytes]`);
  });

  it('makes non-2xx an error with status, reason and body excerpt', () => {
    expect(
      toToolOutput(response(404, '{"code": 404, "message": "no such pet"}', 'application/json'), operation, {
        maxBytes: MAX,
      }),
    ).toEqual({
      isError: true,
      text: 'HTTP 404 Not Found: {"code":404,"message":"no such pet"}',
    });
    const long = toToolOutput(response(500, 'e'.repeat(10_000), 'text/html'), operation, { maxBytes: 100_000 });
    expect(long.isError).toBe(true);
    expect(long.text).toBe(`HTTP 500 Internal Server Error: ${'e'.repeat(2_000)}…`);
    expect(toToolOutput(response(503, ''), operation, { maxBytes: MAX })).toEqual({
      isError: true,
      text: 'HTTP 503 Service Unavailable',
    });
  });

  it('says so when a 2xx has no body', () => {
    expect(toToolOutput(response(204, ''), operation, { maxBytes: MAX })).toEqual({
      isError: false,
      text: 'HTTP 204 No Content: empty response body',
    });
  });
});
