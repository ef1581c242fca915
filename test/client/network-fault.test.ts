import { Baton } from '@baton/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultMessages, startClientHarness, type ClientHarness } from './client-fixtures.ts';
import { SabotageProxy, type Sabotage } from './sabotage-proxy.ts';

/**
 * A network fault in the middle of a submit: Baton applies the results, the client never hears.
 * The SDK retries with the same Idempotency-Key, Baton replays the stored outcome, and nothing is
 * applied or run twice.
 */
describe('network fault while submitting results', () => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await startClientHarness();
  });
  afterAll(async () => h.close());

  const isResultsPost = (request: { method: string; url: string; body: string }): boolean =>
    request.method === 'POST' && request.url.endsWith('/messages') && request.body.includes('"tool_result"');

  async function runThroughProxy(sabotage: Sabotage, stream: boolean) {
    const threadId = await h.thread('weather');
    // Only the first results POST is cut; its retry goes through.
    const proxy = await new SabotageProxy(h.server.url, (request, seen) =>
      isResultsPost(request) && !seen.some(isResultsPost) ? sabotage : null,
    ).start();
    try {
      const baton = new Baton({ baseURL: proxy.url, apiKey: h.server.key, retryDelayMs: 10 });
      const runs: Record<string, number> = {};
      const tools = {
        get_weather: (input: Record<string, unknown>) => (
          (runs[String(input.city)] = (runs[String(input.city)] ?? 0) + 1),
          `${String(input.city)}: 10C`
        ),
      };
      let text: string;
      if (stream) {
        let last = '';
        for await (const event of baton.threads.stream(threadId, 'weather in SF and NYC', { tools }))
          if (event.type === 'done') last = event.result.text;
        text = last;
      } else {
        text = (await baton.threads.run(threadId, 'weather in SF and NYC', { tools })).text;
      }
      return { threadId, text, runs, submits: proxy.requests.filter(isResultsPost) };
    } finally {
      await proxy.close();
    }
  }

  async function expectAppliedOnce(threadId: string): Promise<void> {
    const messages = await resultMessages(h.server, threadId);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.content).toHaveLength(2);
    const calls = (await h.server.request('GET', `/v1/tool-calls?thread_id=${threadId}`)).body.data as {
      state: string;
      submitted_at: string;
    }[];
    expect(calls.map((call) => call.state)).toEqual(['completed', 'completed']);
    expect((await h.server.request('GET', `/v1/threads/${threadId}`)).body.status).toBe('idle');
  }

  it('the socket dies after Baton answered: the retry replays, the handlers ran once', async () => {
    const { threadId, text, runs, submits } = await runThroughProxy('after-response', false);
    expect(runs).toEqual({ SF: 1, NYC: 1 });
    expect(submits).toHaveLength(2);
    expect(submits[0]?.sabotaged).toBe('after-response');
    expect(submits[0]?.status).toBe(200);
    const key = submits[0]?.headers['idempotency-key'];
    expect(key).toMatch(/^baton-threads-results-[0-9a-f]{64}$/);
    expect(submits[1]?.headers['idempotency-key']).toBe(key);
    expect(submits[1]?.responseHeaders['idempotent-replayed']).toBe('true');
    expect(text).toContain('Weather report');
    await expectAppliedOnce(threadId);
  });

  it('a streamed submit cut mid-stream is repeated with the same key and completes', async () => {
    const { threadId, text, runs, submits } = await runThroughProxy('mid-stream', true);
    expect(runs).toEqual({ SF: 1, NYC: 1 });
    expect(submits.length).toBeGreaterThanOrEqual(2);
    expect(new Set(submits.map((submit) => submit.headers['idempotency-key'])).size).toBe(1);
    expect(text).toContain('Weather report');
    await expectAppliedOnce(threadId);
  });
});
