import { Baton, type BatonOptions } from '@baton/client';
import { DEMO_AGENT } from '../../src/server/config.ts';
import type { AgentWire } from '../../src/resources/agents/agent-config-form.ts';
import { testPrograms, weatherAgent, weatherTool } from '../helpers/test-agents.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/** Agent `shipper` (CES resources): `shipping_cost` runs on Baton after a person approves; `get_weather` is the client's. */
export const APP = 'projects/default/locations/global/apps/default';

const shipProgram = {
  rules: [
    {
      when: { user: 'ship and weather' },
      calls: [
        { tool: 'get_weather', arguments: { city: 'Oslo' } },
        { tool: 'shipping_cost', arguments: { zip_code: '92031' } },
      ],
    },
    { when: { user: 'ship' }, call: { tool: 'shipping_cost', arguments: { zip_code: '92031' } } },
    { when: { user: 'weather' }, call: { tool: 'get_weather', arguments: { city: 'Oslo' } } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

/** Creates the `shipper` agent and its tools through the CES resource API. */
export async function createShipper(server: TestBaton): Promise<void> {
  const create = async (path: string, body: unknown): Promise<void> => {
    const response = await server.request('POST', `/v1/${APP}/${path}`, body);
    if (response.status !== 200) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  };
  await create('tools?toolId=shipping-cost', {
    jsFunction: {
      name: 'shipping_cost',
      description: 'Shipping cost of an order to a zip code.',
      parameters: { type: 'OBJECT', properties: { zip_code: { type: 'STRING' } }, required: ['zip_code'] },
      jsCode: 'function shipping_cost(args) { return { zip_code: args.zip_code, cost_usd: 4.5 }; }',
    },
    requireApproval: true,
  });
  await create('tools?toolId=get-weather', {
    clientFunction: {
      name: 'get_weather',
      description: 'Weather of a city.',
      parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
    },
  });
  await create('agents?agentId=shipper', {
    displayName: 'Shipper',
    instruction: 'Answer shipping questions.',
    modelSettings: { model: 'scripted:ship' },
    tools: [`${APP}/tools/shipping-cost`, `${APP}/tools/get-weather`],
  });
}

/** Scripted programs the SDK tests add to the shared ones. */
export const clientPrograms = {
  ...testPrograms,
  ship: shipProgram,
  /** Calls `ping` again after every result: a model that never stops calling tools. */
  looping: {
    rules: [
      { when: { user: 'loop' }, call: { tool: 'ping', arguments: {} } },
      { when: { tool_result: 'ping' }, call: { tool: 'ping', arguments: {} } },
      { say: 'never' },
    ],
  },
};

export const loopingAgent: AgentWire = {
  name: 'looper',
  model: 'scripted:looping',
  max_steps: 100,
  tools: [{ name: 'ping', description: 'Ping.', parameters: { type: 'object', properties: {} } }],
};

export { weatherAgent, weatherTool };

export const SEED = 'I need approval to process a $500 refund';

export interface ClientHarness {
  server: TestBaton;
  baton: Baton;
  /** A new thread with `agent`; returns its id. */
  thread(agent: string): Promise<string>;
  close(): Promise<void>;
}

/** A real Baton on a random port (in-memory SQLite) with the demo, weather and looping agents, and an SDK client for it. */
export async function startClientHarness(
  options: Partial<BatonOptions> = {},
  extraAgents: AgentWire[] = [],
  extraPrograms: Record<string, unknown> = {},
): Promise<ClientHarness> {
  const server = await startTestBaton({
    scripted: { ...clientPrograms, ...extraPrograms },
    agents: [DEMO_AGENT, weatherAgent, loopingAgent, ...extraAgents],
  });
  const baton = new Baton({
    baseURL: server.url,
    apiKey: server.key,
    pollIntervalMs: 50,
    retryDelayMs: 20,
    ...options,
  });
  return {
    server,
    baton,
    thread: async (agent) => (await baton.threads.create({ agent })).id,
    close: () => server.close(),
  };
}

/** The transcript's messages that carry tool results. */
export async function resultMessages(
  server: TestBaton,
  threadId: string,
): Promise<{ content: { tool_call_id: string; content?: string; is_error?: boolean }[] }[]> {
  const messages = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data as {
    role: string;
    content: unknown;
  }[];
  return messages.filter(
    (message): message is { role: string; content: { tool_call_id: string; content?: string; is_error?: boolean }[] } =>
      Array.isArray(message.content) && (message.content as { type?: string }[])[0]?.type === 'tool_result',
  );
}
