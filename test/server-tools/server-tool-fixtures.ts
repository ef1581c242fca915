import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { priceApiDocument } from '../helpers/price-api-document.ts';
import type { TestBaton } from '../helpers/test-baton.ts';

export const APP = 'projects/default/locations/global/apps/default';

/** A price API on loopback that counts its requests, so a test can prove nothing ran twice. */
export class PriceApi {
  readonly requests: { url: string; headers: IncomingMessage['headers'] }[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      this.requests.push({ url: request.url ?? '', headers: request.headers });
      const sku = decodeURIComponent((request.url ?? '').split('/').pop() ?? '');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ sku, price: 42 }));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** An OpenAPI 3.1 document with one operation, `lookup_price`, served by this API. */
  document(): string {
    return priceApiDocument(this.url);
  }
}

/** POSTs a resource and expects 200. */
export async function create(baton: TestBaton, path: string, body: unknown): Promise<any> {
  const response = await baton.request('POST', `/v1/${APP}/${path}`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

export const weatherClientFunction = {
  clientFunction: {
    name: 'get_weather',
    description: 'Weather of a city, looked up by the app.',
    parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
  },
};

/** One step with two client calls around a server call; then the results are summed up. */
export const mixedProgram = {
  rules: [
    {
      when: { user: 'mixed' },
      calls: [
        { tool: 'get_weather', arguments: { city: 'SF' } },
        { tool: 'lookup_price', arguments: { sku: 'A-1' } },
        { tool: 'get_weather', arguments: { city: 'NYC' } },
      ],
    },
    { when: { user: 'price' }, call: { tool: 'lookup_price', arguments: { sku: 'B-2' } } },
    { when: { user: 'quote' }, call: { tool: 'quote', arguments: { amount: 3 } } },
    { when: { user: 'weather' }, call: { tool: 'get_weather', arguments: { city: 'Oslo' } } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};
