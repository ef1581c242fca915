import OpenAI from 'openai';
import type { ServerCall, ToolProvider } from '../../src/engine/server-calls.ts';
import type { ClientToolDefinition } from '../../src/store/records.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { weatherTool } from '../helpers/test-agents.ts';

/**
 * A Baton with server tools for the Responses tests of server-executed calls: agent `desk` has
 * the client tool `get_weather`, and the server tools `lookup_price` and `refund` (approval).
 */

const serverTools: ClientToolDefinition[] = [
  {
    name: 'lookup_price',
    description: 'Price of a product.',
    parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
    server: { collection: 'tools', resourceId: 'lookup-price' },
  },
  {
    name: 'refund',
    description: 'Refund an amount.',
    parameters: { type: 'object', properties: { amount: { type: 'number', maximum: 100 } }, required: ['amount'] },
    server: { collection: 'tools', resourceId: 'refund' },
    requireApproval: true,
  },
];

/** A stand-in for the tools layer: records every call it runs. */
export class RecordingTools implements ToolProvider {
  readonly runs: ServerCall[] = [];
  async listServerTools() {
    return serverTools;
  }
  async run(call: ServerCall) {
    this.runs.push(call);
    return { output: [{ type: 'text' as const, text: JSON.stringify({ ran: call.tool.name, args: call.arguments }) }], isError: false };
  }
  count(name: string): number {
    return this.runs.filter((run) => run.tool.name === name).length;
  }
}

const program = {
  rules: [
    {
      when: { user: 'mixed' },
      calls: [
        { tool: 'get_weather', arguments: { city: 'SF' } },
        { tool: 'lookup_price', arguments: { sku: 'A-1' } },
        { tool: 'get_weather', arguments: { city: 'NYC' } },
      ],
    },
    {
      when: { user: 'weather and refund' },
      calls: [
        { tool: 'get_weather', arguments: { city: 'Oslo' } },
        { tool: 'refund', arguments: { amount: 9 } },
      ],
    },
    { when: { user: 'refund' }, call: { tool: 'refund', arguments: { amount: 5 } } },
    { when: { user: 'price' }, call: { tool: 'lookup_price', arguments: { sku: 'B-2' } } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

export interface DeskBaton {
  server: TestBaton;
  client: OpenAI;
  tools: RecordingTools;
}

export async function startDesk(): Promise<DeskBaton> {
  const tools = new RecordingTools();
  const server = await startTestBaton({ scripted: { desk: program }, agents: [{ name: 'desk', model: 'scripted:desk', tools: [weatherTool] }] }, { tools });
  return { server, tools, client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 }) };
}

export type Item = Record<string, any>;
/** A response's output as plain objects: the SDK's types know no `baton:` items. */
export const itemsOf = (response: unknown): Item[] => (response as { output: Item[] }).output;
export const runOf = (response: unknown): Item => (response as { baton_run: Item }).baton_run;

/** Answers every `function_call` of `output` with previous_response_id; server calls need no output. */
export function answerClientCalls(client: OpenAI, previousId: string, output: readonly Item[]) {
  return client.responses.create({
    model: 'desk',
    previous_response_id: previousId,
    input: output.filter((item) => item.type === 'function_call').map((item, index) => ({ type: 'function_call_output' as const, call_id: item.call_id, output: `weather ${index}` })),
  });
}

/** Reads a whole stream of the `openai` client as plain events. */
export async function collect(stream: AsyncIterable<unknown>): Promise<Item[]> {
  const events: Item[] = [];
  for await (const event of stream) events.push(event as Item);
  return events;
}
