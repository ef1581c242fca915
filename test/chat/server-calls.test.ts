import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientToolDefinition } from '../../src/domain/records.ts';
import { lookupPriceTool, RecordingTools, refundTool } from '../helpers/recording-tools.ts';
import { weatherTool } from '../helpers/test-agents.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { appState, batonOf, ledgerRow, ownKeyId } from './chat-fixtures.ts';

/**
 * Calls Baton runs itself, seen from a chat client: server tools run inside the request and never
 * show as tool_calls; an approval is an assistant message naming the call and the ledger endpoint
 * that decides it (the request never waits for the person), and the next message goes on in the
 * same conversation once it is decided.
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
    { when: { user: 'news' }, say: 'Nothing new since.' },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

type Message = ChatCompletionMessageParam;

describe('Chat Completions: calls Baton runs itself, and approvals', () => {
  let server: TestBaton;
  let client: OpenAI;
  let tools: RecordingTools;
  let keyId: string;

  beforeAll(async () => {
    tools = new RecordingTools(serverTools);
    server = await startTestBaton(
      { scripted: { desk: program }, agents: [{ name: 'desk', model: 'scripted:desk', tools: [weatherTool] }] },
      { tools },
    );
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
    keyId = await ownKeyId(server);
  });
  afterAll(async () => server?.close());

  const ask = (messages: Message[]) => client.chat.completions.create({ model: 'desk', messages });
  const transcriptOf = async (conversationId: string): Promise<string> => {
    const messages = await server.request('GET', `/v1/threads/${conversationId}/messages?limit=100`);
    expect(messages.status).toBe(200);
    return JSON.stringify(messages.body.data);
  };

  it('a server tool runs inside the request: no tool_calls, the answer uses its result, the ledger has it', async () => {
    const before = tools.count('lookup_price');
    const completion = await ask([{ role: 'user', content: 'price of B-2?' }]);
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(completion.choices[0]?.message.content).toContain('Done:');
    expect(completion.choices[0]?.message.content).toContain('B-2');
    expect(tools.count('lookup_price')).toBe(before + 1);
    const calls = await server.request('GET', `/v1/tool-calls?thread_id=${batonOf(completion).conversation_id}`);
    expect(calls.body.data).toEqual([
      expect.objectContaining({ name: 'lookup_price', kind: 'server', state: 'completed' }),
    ]);
  });

  it('client and server calls of one step: only the client calls are tool_calls; their answers resume the run', async () => {
    const messages: Message[] = [{ role: 'user', content: 'mixed please' }];
    const first = await ask(messages);
    const calls = first.choices[0]?.message.tool_calls ?? [];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(calls.map((call) => (call.type === 'function' ? JSON.parse(call.function.arguments) : null))).toEqual([
      { city: 'SF' },
      { city: 'NYC' },
    ]);
    messages.push(
      first.choices[0]!.message,
      ...calls.map((call, index) => ({ role: 'tool' as const, tool_call_id: call.id, content: `weather ${index}` })),
    );
    const second = await ask(messages);
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(second.choices[0]?.message.content).toContain('Done:');
    // The run resumed with all three results in one message, in call order: the client's two and the server's.
    const thread = await server.request('GET', `/v1/threads/${batonOf(second).conversation_id}/messages?limit=100`);
    const results = (thread.body.data as { content: unknown }[]).find(
      (message) => Array.isArray(message.content) && message.content.some((part) => part.type === 'tool_result'),
    );
    expect((results?.content as { content: string }[]).map((part) => part.content)).toEqual([
      'weather 0',
      JSON.stringify({ ran: 'lookup_price', args: { sku: 'A-1' } }),
      'weather 1',
    ]);
    for (const call of calls)
      expect(await ledgerRow(server, call.id)).toMatchObject({ state: 'completed', submitted_by: keyId });
  });

  it('an approval: the reply names the call and where to decide it; nothing changes until a person does', async () => {
    const before = tools.count('refund');
    const messages: Message[] = [{ role: 'user', content: 'refund me' }];
    const paused = await ask(messages);
    const reply = paused.choices[0]!;
    expect(reply.finish_reason).toBe('stop');
    expect(reply.message.tool_calls).toBeUndefined();
    const [approvalId] = batonOf(paused).pending_approval_ids as string[];
    expect(approvalId).toMatch(/^call_/);
    expect(reply.message.content).toContain('`refund`');
    expect(reply.message.content).toContain(`POST /v1/tool-calls/${approvalId}/decision`);
    expect(batonOf(paused)).toMatchObject({ status: 'requires_action', pending_tool_call_ids: [] });
    expect(await ledgerRow(server, approvalId!)).toMatchObject({ kind: 'approval', state: 'pending' });
    const conversationId = batonOf(paused).conversation_id as string;

    // Asking again before the decision: the same notice, and nothing written anywhere.
    messages.push(reply.message, { role: 'user', content: 'any news?' });
    const state = await appState(server);
    const early = await ask(messages);
    expect(early.choices[0]?.message.content).toBe(reply.message.content);
    expect(batonOf(early)).toMatchObject({ applied: 'unchanged', conversation_id: conversationId });
    expect(await appState(server)).toBe(state);
    expect(tools.count('refund')).toBe(before);

    // A tool message cannot stand in for the decision.
    const asResult = await server.request('POST', '/v1/chat/completions', {
      model: 'desk',
      messages: [
        { role: 'user', content: 'refund me' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: approvalId, type: 'function', function: { name: 'refund', arguments: '{"amount":5}' } }],
        },
        { role: 'tool', tool_call_id: approvalId, content: 'approved by me' },
      ],
    });
    expect(asResult.status).toBe(400);
    expect(asResult.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'server_executed_call',
      param: 'messages[2].tool_call_id',
    });
    expect(asResult.body.error.message).toContain(`POST /v1/tool-calls/${approvalId}/decision`);
    expect(await appState(server)).toBe(state);

    const decided = await server.request('POST', `/v1/tool-calls/${approvalId}/decision`, { approve: true });
    expect(decided.status).toBe(200);
    expect(tools.count('refund')).toBe(before + 1);
    expect(await transcriptOf(conversationId)).toContain('Done:');

    // The next message goes on in the same conversation, whose history holds the approved result.
    const after = await ask(messages);
    expect(after.choices[0]?.finish_reason).toBe('stop');
    expect(after.choices[0]?.message.content).toBe('Nothing new since.');
    expect(batonOf(after)).toMatchObject({ applied: 'continued', conversation_id: conversationId });
    expect(await transcriptOf(conversationId)).toContain('any news?');
    expect(tools.count('refund')).toBe(before + 1);
  });

  it('a client call beside an approval: tool_calls and the notice together; the answer is kept until the decision', async () => {
    const messages: Message[] = [{ role: 'user', content: 'weather and refund' }];
    const paused = await ask(messages);
    const reply = paused.choices[0]!;
    expect(reply.finish_reason).toBe('tool_calls');
    const [call] = reply.message.tool_calls ?? [];
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(call.function.name).toBe('get_weather');
    const [approvalId] = batonOf(paused).pending_approval_ids as string[];
    expect(reply.message.content).toContain(`POST /v1/tool-calls/${approvalId}/decision`);

    messages.push(reply.message, { role: 'tool', tool_call_id: call.id, content: 'snow' });
    const answered = await ask(messages);
    expect(answered.choices[0]?.finish_reason).toBe('stop');
    expect(answered.choices[0]?.message.content).toContain(`POST /v1/tool-calls/${approvalId}/decision`);
    expect(batonOf(answered)).toMatchObject({ applied: 'answered', status: 'requires_action' });
    expect(await ledgerRow(server, call.id)).toMatchObject({ state: 'completed', submitted_by: keyId });
    expect(await ledgerRow(server, approvalId!)).toMatchObject({ state: 'pending' });

    expect((await server.request('POST', `/v1/tool-calls/${approvalId}/decision`, { approve: false })).status).toBe(
      200,
    );
    const conversationId = batonOf(paused).conversation_id as string;
    const transcript = await transcriptOf(conversationId);
    expect(transcript).toContain('snow');
    expect(transcript).toContain('Failed:');

    messages.push(answered.choices[0]!.message, { role: 'user', content: 'news?' });
    const after = await ask(messages);
    expect(batonOf(after)).toMatchObject({ applied: 'continued', conversation_id: conversationId });
    expect(after.choices[0]?.message.content).toBe('Nothing new since.');
  });

  it('streams the approval notice as content, then finish_reason stop', async () => {
    const stream = await client.chat.completions.create({
      model: 'desk',
      messages: [{ role: 'user', content: 'refund, streamed' }],
      stream: true,
    });
    let content = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('stop');
    expect(content).toMatch(/POST \/v1\/tool-calls\/call_\w+\/decision/);
  });
});
