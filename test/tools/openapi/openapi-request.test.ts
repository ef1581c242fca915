import { describe, expect, it } from 'vitest';
import { parseOpenApiDocument } from '../../../src/tools/openapi/openapi-document.ts';
import { OpenApiError } from '../../../src/tools/openapi/openapi-error.ts';
import { operationsFromDocument, type OpenApiOperationTool } from '../../../src/tools/openapi/openapi-operations.ts';
import { buildRequest } from '../../../src/tools/openapi/openapi-request.ts';
import { doc30, ok, THINGS_YAML, toYaml } from './openapi-test-docs.ts';

const BASE = 'https://api.example.com/v1';

async function tool(text: string, name: string): Promise<OpenApiOperationTool> {
  const found = operationsFromDocument(await parseOpenApiDocument(text)).tools.find(
    (candidate) => candidate.name === name,
  );
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

const SEARCH = toYaml(
  doc30({
    '/files/{path}/{version}': {
      get: {
        operationId: 'search',
        parameters: [
          { name: 'path', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'version', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'tag', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          { name: 'ids', in: 'query', explode: false, schema: { type: 'array', items: { type: 'integer' } } },
          { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
          { name: 'where', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
          { name: 'X-Mode', in: 'header', schema: { type: 'array', items: { type: 'string' } } },
          { name: 'session', in: 'cookie', schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  }),
);

describe('buildRequest', () => {
  it('substitutes and encodes path parameters and serialises query, header and cookie parameters', async () => {
    const search = await tool(SEARCH, 'search');
    const request = buildRequest(
      search,
      {
        path: 'a b/../c?d#e',
        version: 3,
        tag: ['x y', 'z&w'],
        ids: [1, 2],
        filter: { kind: 'pdf', size: 10 },
        q: '\u00fc\u00f1\u00ef',
        where: { a: 1 },
        'X-Mode': ['fast', 'safe'],
        session: 's1',
      },
      BASE,
    );
    expect(request.method).toBe('GET');
    expect(request.url).toBe(
      `${BASE}/files/a%20b%2F..%2Fc%3Fd%23e/3?tag=x%20y&tag=z%26w&ids=1,2&filter[kind]=pdf&filter[size]=10&q=%C3%BC%C3%B1%C3%AF&where=%7B%22a%22%3A1%7D`,
    );
    expect(new URL(request.url).pathname).toBe('/v1/files/a%20b%2F..%2Fc%3Fd%23e/3'); // nothing escaped the segment
    expect(request.headers).toEqual({
      accept: 'application/json, */*;q=0.8',
      'x-mode': 'fast,safe',
      cookie: 'session=s1',
    });
    expect(request.body).toBeUndefined();
  });

  it('leaves out optional parameters that are absent or null', async () => {
    const search = await tool(SEARCH, 'search');
    expect(buildRequest(search, { path: 'p', version: 1, q: null }, BASE).url).toBe(`${BASE}/files/p/1`);
  });

  it('sends a JSON body with its content type', async () => {
    const put = await tool(THINGS_YAML, 'putThing');
    const request = buildRequest(put, { thingId: 't/1', body: { name: 'lamp', parts: [{ label: 'bulb' }] } }, BASE);
    expect(request).toEqual({
      method: 'PUT',
      url: `${BASE}/things/t%2F1`,
      headers: { accept: '*/*', 'content-type': 'application/json' },
      body: '{"name":"lamp","parts":[{"label":"bulb"}]}',
    });
  });

  it('sends a form body', async () => {
    const login = await tool(
      toYaml(
        doc30({
          '/login': {
            post: {
              operationId: 'login',
              requestBody: {
                required: true,
                content: { 'application/x-www-form-urlencoded': { schema: { type: 'object' } } },
              },
              responses: ok,
            },
          },
        }),
      ),
      'login',
    );
    const request = buildRequest(login, { body: { user: 'a b', scope: ['r', 'w'], meta: { x: 1 } } }, BASE);
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.body).toBe('user=a+b&scope=r&scope=w&meta=%7B%22x%22%3A1%7D');
  });

  it('refuses unknown argument names, missing required ones and non-object arguments', async () => {
    const get = await tool(THINGS_YAML, 'getThing');
    expect(() => buildRequest(get, { thingId: 't', 'X-Trace': 'x', colour: 'red' }, BASE)).toThrow(
      "unknown argument 'colour' for getThing; it takes 'thingId', 'fields', 'X-Trace'",
    );
    expect(() => buildRequest(get, { thingId: 't' }, BASE)).toThrow(
      "missing required argument 'X-Trace' (header parameter 'X-Trace')",
    );
    expect(() => buildRequest(get, { 'X-Trace': 'x' }, BASE)).toThrow(
      "missing required argument 'thingId' (path parameter 'thingId')",
    );
    expect(() => buildRequest(get, [1], BASE)).toThrow(OpenApiError);
    const put = await tool(THINGS_YAML, 'putThing');
    expect(() => buildRequest(put, { thingId: 't' }, BASE)).toThrow("missing required argument 'body'");
  });

  it('refuses header values that would split the header', async () => {
    const get = await tool(THINGS_YAML, 'getThing');
    expect(() => buildRequest(get, { thingId: 't', 'X-Trace': 'a\r\nX-Admin: 1' }, BASE)).toThrow(/line breaks/);
  });

  it('merges auth headers and query parameters, which win over same-named parameters', async () => {
    const search = await tool(SEARCH, 'search');
    const request = buildRequest(search, { path: 'p', version: 1, q: 'model-chosen', 'X-Mode': 'm' }, BASE, {
      auth: { headers: { Authorization: 'Bearer t0k', 'X-Mode': 'forced' }, query: { q: 'k e y' } },
    });
    expect(request.url).toBe(`${BASE}/files/p/1?q=k%20e%20y`);
    expect(request.headers).toMatchObject({ authorization: 'Bearer t0k', 'x-mode': 'forced' });
  });
});
