import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fireTogether } from '../helpers/fire-together.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

const getWeather = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Racing continuations of one paused response: one wins, the others get a clear error, nothing runs twice. */
describe('Responses API: concurrent continuations', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton();
  });
  afterAll(async () => server.close());

  it('applies exactly one of several identical-looking outputs sent at once', async () => {
    const paused = await server.request('POST', '/v1/responses', {
      model: 'scripted:auto',
      input: 'What is the weather in Paris?',
      tools: [getWeather],
    });
    const call = paused.body.output.find((item: { type: string }) => item.type === 'function_call');
    const answers = await fireTogether(6, (index) =>
      server.request('POST', '/v1/responses', {
        model: 'scripted:auto',
        previous_response_id: paused.body.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: `{"answer":${index}}` }],
      }),
    );
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    for (const lost of answers.filter((answer) => answer.status !== 200)) {
      expect([400, 409]).toContain(lost.status);
      expect(lost.body.error.message).toMatch(/already|Another request/);
    }
    const entry = await server.request('GET', `/v1/tool-calls/${call.call_id}`);
    expect(entry.body.state).toBe('completed');
    const winner = won[0]!.body;
    const inputItems = await server.request('GET', `/v1/responses/${winner.id}/input_items`);
    expect(inputItems.body.data).toHaveLength(1);
    // The one output applied is the winner's, and it is what the ledger recorded.
    expect(entry.body.result.content).toBe(inputItems.body.data[0].output);
    const messages = await server.request('GET', `/v1/threads/${winner.baton_run.conversation_id}/messages`);
    const outputs = messages.body.data
      .flatMap((message: { content: unknown }) => (Array.isArray(message.content) ? message.content : []))
      .filter((block: { type: string }) => block.type === 'tool_result');
    expect(outputs).toHaveLength(1);
  });
});
