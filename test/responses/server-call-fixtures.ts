import OpenAI from 'openai';
import type { ClientToolDefinition } from '../../src/domain/records.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { weatherTool } from '../helpers/test-agents.ts';
import { lookupPriceTool, RecordingTools, refundTool } from '../helpers/recording-tools.ts';

/**
 * A Baton with server tools for the Responses tests of server-executed calls: agent `desk` has
 * the client tool `get_weather`, and the server tools `lookup_price` and `refund` (approval).
 */

const serverTools: ClientToolDefinition[] = [lookupPriceTool, refundTool];

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
  const tools = new RecordingTools(serverTools);
  const server = await startTestBaton(
    { scripted: { desk: program }, agents: [{ name: 'desk', model: 'scripted:desk', tools: [weatherTool] }] },
    { tools },
  );
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
    input: output
      .filter((item) => item.type === 'function_call')
      .map((item, index) => ({
        type: 'function_call_output' as const,
        call_id: item.call_id,
        output: `weather ${index}`,
      })),
  });
}

/** Reads a whole stream of the `openai` client as plain events. */
export async function collect(stream: AsyncIterable<unknown>): Promise<Item[]> {
  const events: Item[] = [];
  for await (const event of stream) events.push(event as Item);
  return events;
}
