/**
 * What an OpenAPI document may cost to read: its size, and its expansion once dereferenced
 * (`$ref`s replaced, nesting), measured on the document as written before it is dereferenced.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseOpenApiDocument } from '../../../src/tools/openapi/openapi-document.ts';
import { measureExpansion } from '../../../src/tools/openapi/openapi-expansion.ts';
import { DEFAULT_OPENAPI_LIMITS, OpenApiLimitError } from '../../../src/tools/openapi/openapi-limits.ts';
import { referenceChainDocument } from '../../helpers/hostile-openapi.ts';

async function limitOf(text: string, limits = DEFAULT_OPENAPI_LIMITS): Promise<OpenApiLimitError> {
  const error: unknown = await parseOpenApiDocument(text, limits).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(OpenApiLimitError);
  return error as OpenApiLimitError;
}

describe('OpenAPI document limits', () => {
  it('refuses a 5 KB document whose schemas reference each other into 10^14 expansions, before dereferencing it', async () => {
    const text = referenceChainDocument(24, 4);
    expect(text.length).toBeLessThan(5_200);
    const error = await limitOf(text);
    expect(error.limit).toBe('max_refs');
    expect(error.message).toBe(
      "the OpenAPI document's $refs expand more than 2000 times when dereferenced (schemas that reference each other " +
        'repeatedly); reference fewer schemas, or fewer times each',
    );
  });

  it('refuses a chain of references nested past max_depth', async () => {
    const error = await limitOf(referenceChainDocument(45, 1));
    expect(error.limit).toBe('max_depth');
    expect(error.message).toContain('nests deeper than 64 levels once its $refs are expanded');
  });

  it('refuses a document larger than max_bytes, counted in UTF-8', async () => {
    const text = `openapi: 3.0.0\ninfo: {title: "${'é'.repeat(600)}", version: "1"}\npaths: {}`;
    const error = await limitOf(text, { ...DEFAULT_OPENAPI_LIMITS, maxBytes: 1024 });
    expect(error.limit).toBe('max_bytes');
    expect(error.message).toBe(
      `the OpenAPI document is ${Buffer.byteLength(text)} bytes, more than the limit of 1024 bytes`,
    );
  });

  it('measures each reference target once, counts every place it expands, and keeps recursion a leaf', () => {
    const shared = { $ref: '#/components/schemas/Leaf' };
    const document = {
      paths: { a: shared, b: shared, c: { $ref: '#/components/schemas/Pair' } },
      components: {
        schemas: {
          Leaf: { type: 'string' },
          Pair: { type: 'object', properties: { x: shared, y: shared } },
          Node: {
            type: 'object',
            properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
          },
        },
      },
    };
    // a, b: 1 each; c: 1 + 2 (Pair's own); Pair in components: 2; Node's $ref to itself stays a $ref.
    expect(measureExpansion(document, DEFAULT_OPENAPI_LIMITS)).toEqual({ refs: 7, depth: 7 });
  });

  it('admits the OpenAPI fixtures with room to spare under the defaults', async () => {
    for (const name of ['petstore.yaml', 'petstore-expanded.yaml']) {
      const text = readFileSync(new URL(`../../fixtures/openapi/${name}`, import.meta.url), 'utf8');
      const document = await parseOpenApiDocument(text);
      expect(document.title).not.toBe('');
    }
    // About 1,000 expansions (the default admits 2,000).
    await expect(parseOpenApiDocument(referenceChainDocument(8, 2))).resolves.toBeDefined();
  });
});
