import type { TestBaton } from '../helpers/test-baton.ts';

/** `get_weather` as a Chat Completions function tool, the shape every OpenAI client sends. */
export const getWeatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Get the current weather of a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' } },
      required: ['city'],
    },
  },
};

export const WEATHER_QUESTION = 'What is the weather in Paris right now?';
export const PARIS_WEATHER = JSON.stringify({ temperature: 18, conditions: 'sunny' });

/** The ledger row of a call, as `GET /v1/tool-calls/{id}` shows it. */
export async function ledgerRow(server: TestBaton, callId: string): Promise<Record<string, any>> {
  const row = await server.request('GET', `/v1/tool-calls/${callId}`);
  if (row.status !== 200) throw new Error(`GET /v1/tool-calls/${callId} → ${row.status} ${JSON.stringify(row.body)}`);
  return row.body as Record<string, any>;
}

/** The id of the key a TestBaton's requests use, as the ledger records it in `submitted_by`. */
export async function ownKeyId(server: TestBaton): Promise<string> {
  const me = await server.request('GET', '/v1/me');
  const id = (me.body as { key?: { id?: unknown } }).key?.id;
  if (typeof id !== 'string') throw new Error(`GET /v1/me has no key id: ${JSON.stringify(me.body)}`);
  return id;
}

/** Everything the app holds that a refused request must leave as it was: conversations and calls. */
export async function appState(server: TestBaton): Promise<string> {
  const threads = await server.request('GET', '/v1/threads?limit=100');
  const calls = await server.request('GET', '/v1/tool-calls?limit=100');
  const agents = await server.request('GET', '/v1/agents?limit=100');
  return JSON.stringify([threads.body, calls.body, agents.body]);
}

/** The `baton` extension of a completion (the SDK types do not know it). */
export function batonOf(completion: unknown): Record<string, any> {
  return (completion as { baton: Record<string, any> }).baton;
}
