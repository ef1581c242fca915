import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { getWeatherTool, ledgerRow, WEATHER_QUESTION } from './chat-fixtures.ts';

/**
 * A Chat Completions client is as stateless as a Responses one: a call it walks away from gets
 * the same fallback deadline (`responses.tool_timeout_seconds`), so it does not wait in the
 * ledger and the console's inbox for ever.
 */
describe('Chat Completions: calls a client leaves unanswered have a deadline', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton({ responsesToolTimeoutSeconds: 600 });
  });
  afterAll(async () => server.close());

  it('a paused call expires after responses.tool_timeout_seconds when neither tool nor agent sets one', async () => {
    const before = Date.now();
    const paused = await server.request('POST', '/v1/chat/completions', {
      model: 'scripted:auto',
      messages: [{ role: 'user', content: WEATHER_QUESTION }],
      tools: [getWeatherTool],
    });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    const callId = paused.body.choices[0].message.tool_calls[0].id as string;
    const row = await ledgerRow(server, callId);
    const deadline = Date.parse(row.deadline_at as string);
    expect(deadline).toBeGreaterThanOrEqual(before + 600_000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 600_000);
  });
});
