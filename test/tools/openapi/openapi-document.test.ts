import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOpenApiDocument, serverUrl } from '../../../src/tools/openapi/openapi-document.ts';
import { OpenApiError } from '../../../src/tools/openapi/openapi-error.ts';
import { doc30, ok, THINGS_YAML, toYaml } from './openapi-test-docs.ts';

async function refusal(text: string): Promise<OpenApiError> {
  try {
    await parseOpenApiDocument(text);
  } catch (error) {
    expect(error).toBeInstanceOf(OpenApiError);
    return error as OpenApiError;
  }
  throw new Error('expected the document to be refused');
}

describe('parseOpenApiDocument', () => {
  it('reads YAML and resolves internal $refs, including path-level parameters', async () => {
    const document = await parseOpenApiDocument(THINGS_YAML);
    expect(document.version).toBe('3.0');
    expect(document.title).toBe('Things');
    const item = document.paths['/things/{thingId}'];
    expect(item?.parameters?.[0]).toMatchObject({ name: 'thingId', in: 'path' });
    const schema = item?.get?.responses?.['200']?.content?.['application/json']?.schema;
    expect(schema).toMatchObject({
      type: 'object',
      properties: { parts: { items: { properties: { label: { type: 'string' } } } } },
    });
    expect(JSON.stringify(document.raw)).not.toContain('$ref');
  });

  it('reads the same document given as JSON', async () => {
    const fromYaml = await parseOpenApiDocument(THINGS_YAML);
    const fromJson = await parseOpenApiDocument(JSON.stringify(fromYaml.raw));
    expect(fromJson.raw).toEqual(fromYaml.raw);
  });

  it('accepts OpenAPI 3.1 and keeps recursive schemas as $ref instead of looping', async () => {
    const document = await parseOpenApiDocument(
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'Tree', version: '1' },
        paths: {
          '/nodes': {
            get: {
              responses: {
                '200': {
                  description: 'ok',
                  content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
                },
              },
            },
          },
        },
        components: {
          schemas: {
            Node: {
              type: 'object',
              properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
            },
          },
        },
      }),
    );
    expect(document.version).toBe('3.1');
    expect(() => JSON.stringify(document.raw)).not.toThrow();
  });

  it('refuses Swagger 2 with a hint to convert', async () => {
    const error = await refusal(toYaml({ swagger: '2.0', info: { title: 'x', version: '1' }, paths: {} }));
    expect(error.message).toMatch(/Swagger 2\.0 documents are not supported/);
    expect(error.message).toMatch(/convert .* to OpenAPI 3/);
  });

  it('refuses unsupported versions and non-OpenAPI text', async () => {
    expect(
      (await refusal(toYaml({ openapi: '3.2.0', info: { title: 'x', version: '1' }, paths: {} }))).message,
    ).toMatch(/"3\.2\.0" is not supported/);
    expect((await refusal('just: a map')).message).toMatch(/`openapi` version field is missing/);
    expect((await refusal('- a\n- list')).message).toMatch(/object at the top level/);
    expect((await refusal('{"openapi": "3.0.0",')).message).toMatch(/not valid JSON/);
    expect((await refusal('a: [\n')).message).toMatch(/not valid YAML/);
    expect((await refusal('  ')).message).toMatch(/empty/);
  });

  it('names the problem and where it is for an invalid document', async () => {
    const missingResponses = await refusal(toYaml(doc30({ '/pets': { get: { operationId: 'listPets' } } })));
    expect(missingResponses.message).toContain("paths./pets.get: must have required property 'responses'");

    const noVersion = await refusal(toYaml({ openapi: '3.0.0', info: { title: 'x' }, paths: {} }));
    expect(noVersion.message).toContain("info: must have required property 'version'");

    const undeclared = await refusal(toYaml(doc30({ '/a/{id}': { get: { responses: ok } } })));
    expect(undeclared.message).toMatch(/\/a\/\{id\}.*missing path parameter/);

    const duplicated = await refusal(
      toYaml(
        doc30({
          '/a': { get: { operationId: 'x', responses: ok } },
          '/b': { get: { operationId: 'x', responses: ok } },
        }),
      ),
    );
    expect(duplicated.message).toMatch(/operationId `x` is duplicated/);
  });

  it('names a $ref that points to nothing and where it is', async () => {
    const error = await refusal(
      toYaml(
        doc30({
          '/a': {
            get: {
              responses: {
                '200': {
                  description: 'ok',
                  content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } },
                },
              },
            },
          },
        }),
      ),
    );
    expect(error.message).toContain('"#/components/schemas/Nope" points to nothing');
    expect(error.where).toBe('paths./a.get.responses.200.content.application/json.schema.$ref');
  });

  describe('external $refs', () => {
    let server: Server;
    let hits = 0;
    beforeAll(async () => {
      server = createServer((_request, response) => {
        hits += 1;
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ type: 'string' }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    const withRef = (ref: string): string =>
      toYaml(
        doc30({
          '/a': {
            get: {
              responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } } },
            },
          },
        }),
      );

    it('refuses a URL reference without fetching it', async () => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/schema.json`;
      const error = await refusal(withRef(url));
      expect(error.message).toMatch(/external \$ref .* is not allowed/);
      expect(error.where).toBe('paths./a.get.responses.200.content.application/json.schema.$ref');
      expect(hits).toBe(0);
    });

    it('refuses file references, relative or absolute', async () => {
      expect((await refusal(withRef('/etc/passwd'))).message).toMatch(/external \$ref "\/etc\/passwd"/);
      expect((await refusal(withRef('common.yaml#/Thing'))).message).toMatch(/external \$ref "common\.yaml#\/Thing"/);
    });
  });
});

describe('serverUrl', () => {
  const servers = (url: string, variables?: Record<string, { default: string }>) => ({
    servers: [{ url, ...(variables ? { variables } : {}) }],
  });

  it('fills server variables from their defaults and drops the trailing slash', async () => {
    expect(serverUrl(await parseOpenApiDocument(THINGS_YAML))).toBe('https://eu.things.example/api');
    expect(serverUrl(servers('https://api.example.com/v1/'))).toBe('https://api.example.com/v1');
  });

  it('replaces a $env_var placeholder with the override, or the whole URL when there is none', () => {
    expect(serverUrl(servers('$env_var'), 'https://staging.example.com/')).toBe('https://staging.example.com');
    expect(serverUrl(servers('https://$env_var/v2'), 'api.example.net')).toBe('https://api.example.net/v2');
    expect(serverUrl(servers('https://api.example.com/v1'), 'http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010');
    expect(serverUrl({ servers: [] }, 'http://127.0.0.1:4010/base')).toBe('http://127.0.0.1:4010/base');
  });

  it('refuses what cannot be called without an override', () => {
    expect(() => serverUrl(servers('/v1'))).toThrow(/relative: set the url field/);
    expect(() => serverUrl(servers('$env_var'))).toThrow(/\$env_var placeholder/);
    expect(() => serverUrl({ servers: [] })).toThrow(/no servers/);
    expect(serverUrl(servers('/v1'), 'https://api.example.com/v1')).toBe('https://api.example.com/v1');
  });

  it('refuses overrides that are not plain http(s) URLs', () => {
    expect(() => serverUrl(servers('/v1'), 'ftp://x.example')).toThrow(/http or https/);
    expect(() => serverUrl(servers('/v1'), 'not a url')).toThrow(/not an absolute URL/);
    expect(() => serverUrl(servers('/v1'), 'https://user:pw@x.example')).toThrow(/credentials/);
  });
});
