/**
 * OpenAPI documents that are small as text and huge once dereferenced: `levels` schemas, each
 * with `width` properties that all reference the next one, used by an operation's request and
 * response. The expansion has about `2 × width^levels` references. Tests and the noisy-neighbour
 * bench post them.
 */
export function referenceChainDocument(levels: number, width: number): string {
  const schemas: Record<string, unknown> = {};
  for (let level = 0; level < levels; level++) {
    const next = { $ref: `#/components/schemas/S${level + 1}` };
    schemas[`S${level}`] =
      level === levels - 1
        ? { type: 'string' }
        : {
            type: 'object',
            properties: Object.fromEntries(Array.from({ length: width }, (_, index) => [`p${index}`, next])),
          };
  }
  const body = { content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } } };
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Chain', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    paths: {
      '/x': { post: { operationId: 'x', requestBody: body, responses: { '200': { description: 'ok', ...body } } } },
    },
    components: { schemas },
  });
}
