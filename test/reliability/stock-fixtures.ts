import { expect } from 'vitest';
import { startServer, type LocalServer } from '../tools/http/local-servers.ts';
import { localApiDocument } from '../resources/tools/provider-fixtures.ts';
import type { BatonProcess } from './baton-process.ts';

/**
 * A stock question answered by a server tool (an OpenAPI operation on a local API), for the tests
 * that kill a replica while the call runs: the API holds the first request until the process is
 * gone, and answers later ones at once.
 */

const APP = 'projects/default/locations/global/apps/default';

/** The scripted program (`scripted: { tools: STOCK_PROGRAM }`): ask the tool, then say what came back. */
export const STOCK_PROGRAM = {
  rules: [
    { when: { user: 'stock' }, call: { tool: 'getStock' } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

/** The stock API: the first request is held (its replica dies meanwhile), later ones answer. Close it after. */
export function startHoldingStockApi(): Promise<LocalServer> {
  return startServer((_req, res, self) => {
    if (self.hits.length === 1) return;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ stock: 7 }));
  });
}

/** The `stock` toolset over `api` and the `stocker` agent that uses it; returns a new thread of it. */
export async function stockThread(baton: BatonProcess, api: LocalServer, idempotent = false): Promise<string> {
  const toolset = await baton.request('POST', `/v1/${APP}/toolsets?toolsetId=stock`, {
    displayName: 'Stock',
    idempotent,
    openApiToolset: {
      openApiSchema: localApiDocument(api.origin, [{ method: 'get', path: '/stock', operationId: 'getStock' }]),
    },
  });
  expect(toolset.status, toolset.text).toBe(200);
  const agent = await baton.request('POST', `/v1/${APP}/agents?agentId=stocker`, {
    displayName: 'Stocker',
    instruction: 'Answer stock questions with the tool.',
    modelSettings: { model: 'scripted:tools' },
    toolsets: [{ toolset: `${APP}/toolsets/stock` }],
  });
  expect(agent.status, agent.text).toBe(200);
  const thread = await baton.request('POST', '/v1/threads', { agent: 'stocker' });
  expect(thread.status, thread.text).toBe(200);
  return thread.body.id as string;
}
