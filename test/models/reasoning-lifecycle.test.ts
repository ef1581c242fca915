import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { runSession } from '../faces/ces/sessions/session-fixtures.ts';
import { APP, create, weatherClientFunction } from '../server-tools/server-tool-fixtures.ts';
import { chatCompletionChunks, startFakeOpenAIServer, type FakeOpenAIServer } from './fake-openai-server.ts';
import { startAnthropicMessagesFake, type AnthropicMessagesFake } from './fakes/anthropic-messages-fake.ts';

describe('a step cut off after its reasoning', () => {
  let fake: FakeOpenAIServer;
  let baton: TestBaton;
  let cutOff = true;

  beforeAll(async () => {
    // The stream shows reasoning, then the server fails mid-stream (as vLLM does when it runs out of memory).
    fake = await startFakeOpenAIServer(() => ({
      kind: 'sse',
      events: cutOff
        ? [
            {
              id: 'c1',
              object: 'chat.completion.chunk',
              created: 1,
              model: 'qwen3',
              choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'Half a thought' } }],
            },
            { error: { message: 'The engine ran out of memory.', type: 'server_error', code: 'oom' } },
          ]
        : chatCompletionChunks({ text: 'Whole answer.' }),
    }));
    baton = await startTestBaton({
      providers: { 'openai-compatible': { baseURL: fake.baseURL } },
      agents: [{ name: 'local', model: 'openai-compatible:qwen3' }],
    });
  });
  afterAll(async () => {
    await baton?.close();
    await fake?.close();
  });

  it('fails the turn and stores none of that reasoning; the next message starts clean', async () => {
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'local' })).body.id;
    const failed = await baton.request('POST', `/v1/threads/${thread}/messages`, { content: 'think' });
    expect(failed.status).toBe(502);
    expect(failed.body.error.code).toBe('model_error');
    const afterFailure = await baton.request('GET', `/v1/threads/${thread}/messages`);
    expect(afterFailure.body.data.map((message: { role: string }) => message.role)).toEqual(['user']);
    expect(JSON.stringify(afterFailure.body)).not.toContain('Half a thought');

    cutOff = false;
    const answered = await baton.request('POST', `/v1/threads/${thread}/messages`, { content: 'again' });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const resumeRequest = fake.requests[fake.requests.length - 1]!;
    expect(JSON.stringify(resumeRequest.body)).not.toContain('Half a thought');
  });
});

describe('reasoning in CES diagnostics', () => {
  let fake: AnthropicMessagesFake;
  let baton: TestBaton;

  beforeAll(async () => {
    fake = await startAnthropicMessagesFake((view) =>
      view.toolResults.length > 0
        ? { reasoning: 'The answer is in.', text: 'Sunny in Paris.' }
        : { reasoning: 'I should look up Paris.', calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    );
    baton = await startTestBaton({ providers: { anthropic: { baseURL: fake.baseURL, apiKey: 'k' } } });
    await create(baton, 'tools?toolId=weather', weatherClientFunction);
    await create(baton, 'agents?agentId=claude', {
      displayName: 'Claude',
      modelSettings: {
        model: 'anthropic:claude-sonnet-4-5',
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
      },
      tools: [`${APP}/tools/weather`],
    });
    const app = await baton.request('PATCH', `/v1/${APP}?updateMask=rootAgent`, { rootAgent: `${APP}/agents/claude` });
    expect(app.status, JSON.stringify(app.body)).toBe(200);
  });
  afterAll(async () => {
    await baton?.close();
    await fake?.close();
  });

  it('shows the thinking text as the agent’s diagnostics, never its signature, across the pause', async () => {
    const first = await runSession(baton, 'thinking', [{ text: 'weather in Paris?' }]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const paused = first.body.outputs[first.body.outputs.length - 1];
    expect(paused.diagnosticInfo.messages).toContainEqual(
      expect.objectContaining({ chunks: [{ text: 'I should look up Paris.' }] }),
    );
    const call = paused.toolCalls.toolCalls[0];
    const second = await runSession(baton, 'thinking', [
      { toolResponses: { toolResponses: [{ id: call.id, tool: call.tool, response: { weather: 'sunny' } }] } },
    ]);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(fake.rejections).toEqual([]);
    const body = JSON.stringify([first.body, second.body]);
    for (const thinking of fake.issuedThinking) expect(body).not.toContain(thinking.signature);
  });
});
