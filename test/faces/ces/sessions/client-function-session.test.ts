import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../../helpers/test-baton.ts';
import { APP, runSession, seedStoreAgent, sessionPrograms, toolResponse } from './session-fixtures.ts';

/** The seed's client-function flow: toolCalls end the turn and lock the session; toolResponses resume it. */
describe('CES sessions: client functions', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton({ scripted: sessionPrograms });
    await seedStoreAgent(server);
  });
  afterAll(async () => server.close());

  it('returns toolCalls with id, tool, args and displayName, then resumes on toolResponses', async () => {
    const first = await runSession(server, 'seed-flow', [{ text: 'Where is the nearest store?' }]);
    expect(first.status).toBe(200);
    expect(first.body.outputs).toEqual([
      {
        toolCalls: {
          toolCalls: [
            {
              id: expect.stringMatching(/^call_/),
              tool: `${APP}/tools/get-nearest-store`,
              args: { zip_code: '92031' },
              displayName: 'get_nearest_store',
            },
          ],
        },
        turnIndex: 1,
        turnCompleted: true,
      },
    ]);
    const call = first.body.outputs[0].toolCalls.toolCalls[0];

    const second = await runSession(server, 'seed-flow', [
      {
        toolResponses: {
          toolResponses: [
            toolResponse(call, { name: 'Alibaba', address: '43 Alpha Road, Mountain View, CA 92039, USA' }),
          ],
        },
      },
    ]);
    expect(second.status).toBe(200);
    expect(second.body.outputs).toEqual([
      { text: expect.stringContaining('43 Alpha Road'), turnIndex: 2, turnCompleted: true },
    ]);
    const entry = await server.request('GET', `/v1/tool-calls/${call.id}`);
    expect(entry.body.state).toBe('completed');
  });

  it('refuses other input while calls are pending, naming them (FAILED_PRECONDITION), and changes nothing', async () => {
    const first = await runSession(server, 'locked', [{ text: 'Find a store please' }]);
    const call = first.body.outputs[0].toolCalls.toolCalls[0];
    const text = await runSession(server, 'locked', [{ text: 'hello?' }]);
    expect(text.status).toBe(400);
    expect(text.body.error.status).toBe('FAILED_PRECONDITION');
    expect(text.body.error.message).toContain(call.id);
    const info = text.body.error.details.find((detail: { '@type': string }) => detail['@type'].endsWith('ErrorInfo'));
    expect(info).toMatchObject({ reason: 'TOOL_RESPONSES_PENDING', metadata: { pendingToolCallIds: call.id } });
    const conversation = await server.request('GET', `/v1/${APP}/conversations/locked`);
    const texts = JSON.stringify(conversation.body);
    expect(texts).not.toContain('hello?');
    // The lock still holds: the response is accepted afterwards.
    const resumed = await runSession(server, 'locked', [
      { toolResponses: { toolResponses: [toolResponse(call, { output: { name: 'Shop' } })] } },
    ]);
    expect(resumed.status).toBe(200);
    expect(resumed.body.outputs.at(-1).turnCompleted).toBe(true);
  });

  it('handles parallel calls answered one at a time, then a mixed text + toolResponses input', async () => {
    const first = await runSession(server, 'parallel', [{ text: 'Find two stores' }]);
    const calls = first.body.outputs[0].toolCalls.toolCalls;
    expect(calls).toHaveLength(2);
    expect(calls.map((call: { args: { zip_code: string } }) => call.args.zip_code)).toEqual(['92031', '10001']);

    // A partial answer is kept; the output lists the call still owed.
    const partial = await runSession(server, 'parallel', [
      { toolResponses: { toolResponses: [toolResponse(calls[0], { output: 'Store A' })] } },
    ]);
    expect(partial.status).toBe(200);
    expect(partial.body.outputs).toEqual([{ toolCalls: { toolCalls: [calls[1]] }, turnIndex: 2, turnCompleted: true }]);

    // Text cannot ride along while a call is still owed.
    const early = await runSession(server, 'parallel', [{ text: 'and also?' }]);
    expect(early.body.error.status).toBe('FAILED_PRECONDITION');

    const last = await runSession(server, 'parallel', [
      { toolResponses: { toolResponses: [toolResponse(calls[1], { error: 'closed today' })] } },
      { text: 'thanks' },
    ]);
    expect(last.status).toBe(200);
    // The model sees both results and then the text, which it answers.
    expect(last.body.outputs).toEqual([{ text: 'How can I help?', turnIndex: 3, turnCompleted: true }]);

    const conversation = await server.request('GET', `/v1/${APP}/conversations/parallel`);
    expect(conversation.status).toBe(200);
    const chunks = conversation.body.turns.flatMap((turn: { messages: { chunks: object[] }[] }) =>
      turn.messages.flatMap((message) => message.chunks),
    );
    expect(chunks.filter((chunk: object) => 'toolCall' in chunk)).toHaveLength(2);
    const responses = chunks
      .filter((chunk: object) => 'toolResponse' in chunk)
      .map((chunk: { toolResponse: unknown }) => chunk.toolResponse);
    expect(responses).toEqual([
      { id: calls[0].id, tool: calls[0].tool, displayName: 'get_nearest_store', response: { output: 'Store A' } },
      { id: calls[1].id, tool: calls[1].tool, displayName: 'get_nearest_store', response: { error: 'closed today' } },
    ]);
    expect(chunks).toContainEqual({ text: 'thanks' });
    expect(conversation.body.inputTypes).toEqual(
      expect.arrayContaining(['INPUT_TYPE_TEXT', 'INPUT_TYPE_TOOL_RESPONSE']),
    );
  });

  it('does not lock on ASYNCHRONOUS client functions and injects their response when it arrives', async () => {
    const first = await runSession(server, 'async', [{ text: 'please notify the crm' }]);
    expect(first.status).toBe(200);
    const [callsOutput, text] = first.body.outputs;
    const call = callsOutput.toolCalls.toolCalls[0];
    expect(call).toMatchObject({ tool: `${APP}/tools/notify-crm`, displayName: 'notify_crm' });
    expect(text).toEqual({ text: 'I asked the CRM; it will answer later.', turnIndex: 1, turnCompleted: true });

    // The session is usable meanwhile.
    const meanwhile = await runSession(server, 'async', [{ text: 'hello' }]);
    expect(meanwhile.status).toBe(200);

    const late = await runSession(server, 'async', [
      { toolResponses: { toolResponses: [toolResponse(call, { output: { ticket: 'T-42' } })] } },
    ]);
    expect(late.status).toBe(200);
    expect(late.body.outputs).toEqual([{ text: expect.stringContaining('T-42'), turnIndex: 3, turnCompleted: true }]);
    const again = await runSession(server, 'async', [
      { toolResponses: { toolResponses: [toolResponse(call, { output: 'twice' })] } },
    ]);
    expect(again.status).toBe(400);
    expect(again.body.error.status).toBe('FAILED_PRECONDITION');
  });

  it('ends the session when the agent calls end_session; later input is refused', async () => {
    await runSession(server, 'ending', [{ text: 'hello' }]);
    const bye = await runSession(server, 'ending', [{ text: 'ok bye' }]);
    expect(bye.status).toBe(200);
    expect(bye.body.outputs).toEqual([
      { endSession: { metadata: { reason: 'the user said goodbye' } }, turnIndex: 2, turnCompleted: true },
    ]);
    const after = await runSession(server, 'ending', [{ text: 'are you there?' }]);
    expect(after.status).toBe(400);
    expect(after.body.error.status).toBe('FAILED_PRECONDITION');
    expect(after.body.error.message).toContain('has ended');
    const conversation = await server.request('GET', `/v1/${APP}/conversations/ending`);
    expect(conversation.body.endTime).toEqual(expect.any(String));
    expect(JSON.stringify(conversation.body)).not.toContain('are you there?');
  });

  it('streams outputs as SSE frames with :streamRunSession', async () => {
    const response = await fetch(`${server.url}/v1/${APP}/sessions/streamed:streamRunSession`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ config: { session: `${APP}/sessions/streamed` }, inputs: [{ text: 'hi there' }] }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const frames = (await response.text()).split('\n\n').filter((frame) => frame !== '');
    expect(frames.every((frame) => frame.startsWith('data: '))).toBe(true);
    const bodies = frames.map((frame) => JSON.parse(frame.slice(6)));
    expect(bodies.at(-1)).toEqual({ outputs: [{ text: 'How can I help?', turnIndex: 1, turnCompleted: true }] });
  });
});
