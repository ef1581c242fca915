import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseOpenApiDocument } from '../../../src/tools/openapi/openapi-document.ts';
import { OpenApiError } from '../../../src/tools/openapi/openapi-error.ts';
import { toJsonSchema } from '../../../src/tools/openapi/openapi-json-schema.ts';
import {
  operationsFromDocument,
  sanitizeToolName,
  selectOperations,
  TOOL_NAME_PATTERN,
} from '../../../src/tools/openapi/openapi-operations.ts';
import { doc30, ok, THINGS_YAML, toYaml } from './openapi-test-docs.ts';

async function operationsOf(text: string) {
  return operationsFromDocument(await parseOpenApiDocument(text));
}

describe('tool names', () => {
  it('sanitises operationIds and names operations without one after method and path', async () => {
    const { tools } = await operationsOf(
      toYaml(
        doc30({
          '/pets/{id}': {
            get: {
              operationId: 'find pet by id',
              parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
              responses: ok,
            },
          },
          '/pets': { post: { responses: ok } },
          '/': { get: { responses: ok } },
          '/x': { get: { operationId: `a${'b'.repeat(80)}`, responses: ok } },
        }),
      ),
    );
    expect(tools.map((tool) => tool.name)).toEqual(['find_pet_by_id', 'post_pets', 'get', `a${'b'.repeat(63)}`]);
    for (const tool of tools) expect(tool.name).toMatch(TOOL_NAME_PATTERN);
    expect(sanitizeToolName(' list pets (v2).json')).toBe('list_pets_v2_json');
  });

  it('refuses two operations that end up with the same name, naming both', async () => {
    const text = toYaml(
      doc30({
        '/a': { get: { operationId: 'list pets', responses: ok } },
        '/b': { get: { operationId: 'list-pets', responses: ok }, post: { operationId: 'list_pets', responses: ok } },
      }),
    );
    await expect(operationsOf(text)).rejects.toThrow(OpenApiError);
    await expect(operationsOf(text)).rejects.toThrow(
      "operations GET /a (operationId 'list pets') and POST /b (operationId 'list_pets') both become tool name 'list_pets'",
    );
    const generated = toYaml(doc30({ '/a.b': { get: { responses: ok } }, '/a/b': { get: { responses: ok } } }));
    await expect(operationsOf(generated)).rejects.toThrow(
      "operations GET /a.b and GET /a/b both become tool name 'get_a_b'",
    );
  });
});

describe('the parameters schema', () => {
  it('puts path, query and header parameters and the body in one object schema', async () => {
    const { tools } = await operationsOf(THINGS_YAML);
    const get = tools.find((tool) => tool.name === 'getThing');
    expect(get?.description).toBe('Get one thing\n\n(GET /things/{thingId})');
    expect(get?.parameters).toEqual({
      type: 'object',
      properties: {
        thingId: { type: 'string' },
        fields: { type: 'array', items: { type: 'string' } },
        'X-Trace': { type: 'string' },
      },
      required: ['thingId', 'X-Trace'],
      additionalProperties: false,
    });
    expect(get?.bindings.map((binding) => [binding.argName, binding.in, binding.style, binding.explode])).toEqual([
      ['thingId', 'path', 'simple', false],
      ['fields', 'query', 'form', true],
      ['X-Trace', 'header', 'simple', false],
    ]);

    const put = tools.find((tool) => tool.name === 'putThing');
    expect(put?.parameters.required).toEqual(['thingId', 'body']);
    const body = (put?.parameters.properties as Record<string, Record<string, unknown>>).body;
    // readOnly `id` is the server's to set: not part of what a request sends.
    expect(body?.properties).not.toHaveProperty('id');
    expect(body?.required).toEqual(['name']);
    // 3.0 quirks became JSON Schema.
    expect(body?.properties).toMatchObject({
      name: { type: 'string', examples: ['lamp'] },
      colour: { type: ['string', 'null'], enum: ['red', 'blue', null] },
      weight: { type: 'number', exclusiveMinimum: 0 },
    });
    expect(JSON.stringify(body)).not.toMatch(/nullable|"example"|readOnly/);
  });

  it('produces schemas both draft-07 and 2020-12 ajv compile and apply', async () => {
    const { tools } = await operationsOf(THINGS_YAML);
    const put = tools.find((tool) => tool.name === 'putThing');
    for (const ajv of [new Ajv({ strict: false }), new Ajv2020({ strict: false })]) {
      const validate = ajv.compile(put?.parameters ?? {});
      expect(validate({ thingId: 't1', body: { name: 'lamp', colour: null, weight: 1 } })).toBe(true);
      expect(validate({ thingId: 't1', body: { name: 'lamp', weight: 0 } })).toBe(false); // exclusive minimum
      expect(validate({ thingId: 't1', body: { name: 'lamp', colour: 'green' } })).toBe(false);
      expect(validate({ thingId: 't1', body: {}, extra: 1 })).toBe(false);
    }
  });

  it('prefixes parameters whose names clash across locations, and a parameter called body', async () => {
    const { tools } = await operationsOf(
      toYaml(
        doc30({
          '/items/{id}': {
            post: {
              operationId: 'update',
              parameters: [
                { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
                { name: 'id', in: 'query', schema: { type: 'integer' } },
                { name: 'body', in: 'query', schema: { type: 'string' } },
                { name: 'filter[name]', in: 'query', schema: { type: 'string' } },
                { name: 'Authorization', in: 'header', schema: { type: 'string' } },
              ],
              requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
              responses: ok,
            },
          },
        }),
      ),
    );
    const update = tools[0];
    expect(Object.keys(update?.parameters.properties as object)).toEqual([
      'path_id',
      'query_id',
      'query_body',
      'filter_name_',
      'body',
    ]);
    expect(update?.parameters.required).toEqual(['path_id']);
    expect(update?.bindings.find((binding) => binding.argName === 'filter_name_')?.name).toBe('filter[name]');
  });

  it('takes form bodies, and skips an operation whose required body it cannot send', async () => {
    const { tools, skipped } = await operationsOf(
      toYaml(
        doc30({
          '/login': {
            post: {
              operationId: 'login',
              requestBody: {
                required: true,
                content: {
                  'application/x-www-form-urlencoded': {
                    schema: { type: 'object', properties: { user: { type: 'string' } } },
                  },
                },
              },
              responses: ok,
            },
          },
          '/upload': {
            post: {
              operationId: 'upload',
              requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } } } },
              responses: ok,
            },
          },
          '/note': {
            post: {
              operationId: 'note',
              requestBody: { content: { 'text/plain': { schema: { type: 'string' } } } },
              responses: ok,
            },
          },
        }),
      ),
    );
    expect(tools.map((tool) => tool.name)).toEqual(['login', 'note']);
    expect(tools[0]?.body).toEqual({
      argName: 'body',
      contentType: 'application/x-www-form-urlencoded',
      required: true,
    });
    expect(tools[1]?.parameters.properties).toEqual({});
    expect(skipped).toEqual([
      {
        method: 'post',
        path: '/upload',
        operationId: 'upload',
        reason: expect.stringContaining('multipart/form-data'),
      },
    ]);
  });
});

describe('toJsonSchema', () => {
  it('turns recursive $refs and unknown formats into descriptions and drops OpenAPI-only keywords', () => {
    expect(
      toJsonSchema(
        {
          type: 'object',
          'x-internal': true,
          discriminator: { propertyName: 'k' },
          properties: { next: { $ref: '#/components/schemas/Node' } },
        },
        '3.1',
      ),
    ).toEqual({
      type: 'object',
      properties: { next: { description: 'recursive structure (Node)' } },
    });
    expect(toJsonSchema({ type: 'string', format: 'phone', description: 'Phone' }, '3.0')).toEqual({
      type: 'string',
      description: 'Phone (format: phone)',
    });
    expect(toJsonSchema({ allOf: [{ type: 'object' }], nullable: true }, '3.0')).toEqual({
      anyOf: [{ allOf: [{ type: 'object' }] }, { type: 'null' }],
    });
    // 3.1 schemas are JSON Schema already: `nullable` means nothing there.
    expect(toJsonSchema({ type: ['string', 'null'], nullable: true }, '3.1')).toEqual({ type: ['string', 'null'] });
  });
});

describe('selectOperations', () => {
  it('keeps the named tools (by name or operationId) and refuses unknown ids', async () => {
    const { tools } = await operationsOf(
      toYaml(
        doc30({
          '/a': { get: { operationId: 'get a', responses: ok } },
          '/b': { get: { operationId: 'getB', responses: ok } },
          '/c': { get: { operationId: 'getC', responses: ok } },
        }),
      ),
    );
    expect(selectOperations(tools).map((tool) => tool.name)).toEqual(['get_a', 'getB', 'getC']);
    expect(selectOperations(tools, ['getC', 'get a']).map((tool) => tool.name)).toEqual(['get_a', 'getC']);
    expect(() => selectOperations(tools, ['getB', 'nope'])).toThrow(
      "unknown tool id 'nope'; the toolset has 'get_a', 'getB', 'getC'",
    );
  });
});
