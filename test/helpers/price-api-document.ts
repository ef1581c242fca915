/**
 * An OpenAPI 3.1 document with one operation, `lookup_price` (`GET /prices/{sku}`), served at
 * `url`: the API of the server-tool tests and of the server-tool benchmark.
 */
export function priceApiDocument(url: string): string {
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'Prices', version: '1' },
    servers: [{ url }],
    paths: {
      '/prices/{sku}': {
        get: {
          operationId: 'lookup_price',
          description: 'Price of a product by SKU.',
          parameters: [{ name: 'sku', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'The price', content: { 'application/json': { schema: { type: 'object' } } } },
          },
        },
      },
    },
  });
}
