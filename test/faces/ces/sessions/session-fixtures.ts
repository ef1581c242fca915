import type { AgentDefinition, JsonObject } from '../../../../src/domain/records.ts';
import type { TestBaton } from '../../../helpers/test-baton.ts';

export const APP = 'projects/default/locations/global/apps/default';

/** Scripted programs for the client-function session flows (the seed's store lookup). */
export const sessionPrograms = {
  stores: {
    rules: [
      { when: { user: 'bye' }, call: { tool: 'end_session', arguments: { reason: 'the user said goodbye' } } },
      {
        when: { user: 'two stores' },
        calls: [
          { tool: 'get_nearest_store', arguments: { zip_code: '92031' } },
          { tool: 'get_nearest_store', arguments: { zip_code: '10001' } },
        ],
      },
      { when: { user: 'store' }, call: { tool: 'get_nearest_store', arguments: { zip_code: '92031' } } },
      { when: { user: 'asynchronous tool call' }, say: 'The CRM answered: {{user}}' },
      { when: { user: 'notify' }, call: { tool: 'notify_crm', arguments: { note: 'customer asked' } } },
      { when: { tool_error: true }, say: 'The tool failed: {{result}}' },
      { when: { tool_result: 'get_nearest_store' }, say: 'Nearest store: {{result}}' },
      { when: { tool_result: 'notify_crm' }, say: 'I asked the CRM; it will answer later.' },
      { say: 'How can I help?' },
    ],
  },
};

const storeParameters = { type: 'OBJECT', properties: { zip_code: { type: 'STRING' } }, required: ['zip_code'] };

/**
 * Writes the app's tools, an agent using them and the app's rootAgent straight into the store,
 * so session tests do not depend on the resource API (tested on its own).
 */
export async function seedStoreAgent(
  server: TestBaton,
  agentId = 'store-finder',
  model = 'scripted:stores',
  makeRoot = true,
): Promise<void> {
  const store = server.baton.store;
  const appId = server.baton.defaultAppId;
  const now = new Date().toISOString();
  const tools: [string, JsonObject][] = [
    [
      'get-nearest-store',
      {
        clientFunction: {
          name: 'get_nearest_store',
          description: 'Nearest store to a zip code.',
          parameters: storeParameters,
        },
      },
    ],
    [
      'notify-crm',
      {
        clientFunction: {
          name: 'notify_crm',
          description: 'Tell the CRM.',
          parameters: { type: 'OBJECT', properties: { note: { type: 'STRING' } } },
        },
        executionType: 'ASYNCHRONOUS',
      },
    ],
  ];
  for (const [id, body] of tools) {
    if (!(await store.resources.get(appId, 'tools', id))) {
      await store.resources.insert({
        appId,
        collection: 'tools',
        id,
        body,
        revision: 1,
        createdAt: now,
        updatedAt: now,
      });
    }
  }
  const definition: AgentDefinition = {
    name: agentId,
    model,
    instructions: 'Find stores.',
    tools: [],
    // `end_session` is a system tool: referenced by id, run by Baton.
    toolIds: [...tools.map(([id]) => id), 'end_session'],
    maxSteps: 10,
    parallelToolCalls: true,
    toolTimeoutSeconds: null,
    timeoutPolicy: 'error_result',
    inputPolicy: 'reject',
    historyLimit: 200,
    displayName: 'Store finder',
  };
  await store.agents.insert({
    id: `agent_${agentId}`,
    appId,
    name: agentId,
    version: 1,
    definition,
    createdAt: now,
    updatedAt: now,
  });
  if (!makeRoot) return;
  const app = await store.apps.get(appId);
  await store.apps.updateSettings(
    appId,
    app!.revision,
    { ...app!.settings, displayName: 'Default', rootAgent: `${APP}/agents/${agentId}` },
    now,
  );
}

export function runSession(
  server: TestBaton,
  session: string,
  inputs: unknown[],
  config: Record<string, unknown> = {},
  method = 'runSession',
) {
  return server.request('POST', `/v1/${APP}/sessions/${session}:${method}`, {
    config: { session: `${APP}/sessions/${session}`, ...config },
    inputs,
  });
}

export function toolResponse(
  call: { id: string; tool: string; displayName: string },
  response: Record<string, unknown>,
) {
  return { id: call.id, tool: call.tool, displayName: call.displayName, response };
}
