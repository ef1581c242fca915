/**
 * One tenant cannot stall the server: its jsFunction tools run in the sandbox's worker threads,
 * so while two of its calls loop for their whole timeout (a minute, longer than this test may
 * take) `/healthz` answers and another app's jsFunction turn runs to the end, on a worker the
 * looping app may not take. Cancelling the looping turns stops their workers. The operator's cap
 * (`tools.max_timeout_seconds`) bounds a tool that asks for more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_SETTINGS } from '../../src/resources/tools/tool-settings.ts';
import { startTestBaton, type TestBaton, type TestResponse } from '../helpers/test-baton.ts';
import { APP, create } from './server-tool-fixtures.ts';

const program = {
  rules: [
    { when: { user: 'spin' }, call: { tool: 'spin', arguments: {} } },
    { when: { user: 'quote' }, call: { tool: 'quote', arguments: { amount: 3 } } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};
const OBJECT = { type: 'OBJECT', properties: {} };
const SPIN = {
  timeout: '60s',
  jsFunction: { name: 'spin', parameters: OBJECT, jsCode: 'function spin() { for (;;) {} }' },
};
const QUOTE = {
  jsFunction: {
    name: 'quote',
    parameters: { type: 'OBJECT', properties: { amount: { type: 'NUMBER' } } },
    jsCode: 'function quote(args) { return { total: args.amount * 2 }; }',
  },
};

/** A request's promise with a flag saying whether it has answered yet. */
function track(promise: Promise<TestResponse>): { promise: Promise<TestResponse>; answered: () => boolean } {
  let answered = false;
  const tracked = promise.finally(() => {
    answered = true;
  });
  return { promise: tracked, answered: () => answered };
}

async function agentWith(baton: TestBaton, app: string, id: string, tool: string, key: string): Promise<void> {
  const response = await baton.request(
    'POST',
    `/v1/${app}/agents?agentId=${id}`,
    {
      displayName: id,
      instruction: 'Help.',
      modelSettings: { model: 'scripted:noisy' },
      tools: [`${app}/tools/${tool}`],
    },
    { authorization: `Bearer ${key}` },
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

async function thread(baton: TestBaton, agent: string, key: string): Promise<string> {
  const created = await baton.request('POST', '/v1/threads', { agent }, { authorization: `Bearer ${key}` });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.id as string;
}

function say(baton: TestBaton, threadId: string, text: string, key: string): Promise<TestResponse> {
  return baton.request(
    'POST',
    `/v1/threads/${threadId}/messages`,
    { role: 'user', content: text },
    { authorization: `Bearer ${key}` },
  );
}

describe('a tenant whose jsFunction tools loop does not stall the server', () => {
  let baton: TestBaton;
  const other = { app: 'projects/default/locations/global/apps/other', key: '' };

  beforeAll(async () => {
    baton = await startTestBaton({ scripted: { noisy: program } });
    await create(baton, 'tools?toolId=spin', SPIN);
    await agentWith(baton, APP, 'spinner', 'spin', baton.key);
    const app = await baton.request('POST', '/v1/apps', { name: 'other' });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    other.key = app.body.api_key.key as string;
    const tool = await baton.request('POST', `/v1/${other.app}/tools?toolId=quote`, QUOTE, {
      authorization: `Bearer ${other.key}`,
    });
    expect(tool.status, JSON.stringify(tool.body)).toBe(200);
    await agentWith(baton, other.app, 'quoter', 'quote', other.key);
  });
  afterAll(async () => baton?.close());

  it('answers /healthz and runs another app’s jsFunction turn while two busy loops hold the looping app’s share', async () => {
    const looping = [await thread(baton, 'spinner', baton.key), await thread(baton, 'spinner', baton.key)];
    const turns = looping.map((id) => track(say(baton, id, 'spin', baton.key)));

    const health = await baton.request('GET', '/healthz');
    expect(health.body).toEqual({ ok: true });
    const reply = await say(baton, await thread(baton, 'quoter', other.key), 'quote', other.key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.choices[0].message.content).toBe('Done: {"total":6}');
    expect((await baton.request('GET', '/healthz')).status).toBe(200);
    // The loops (a minute each) were running all along.
    expect(turns.map((turn) => turn.answered())).toEqual([false, false]);

    for (const id of looping) expect((await baton.request('POST', `/v1/threads/${id}/cancel`)).status).toBe(200);
    // Cancelling aborts the calls' signals: their workers are terminated, and the requests end.
    await Promise.all(turns.map((turn) => turn.promise));
  });
});

describe('tools.max_timeout_seconds', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton({
      scripted: { noisy: program },
      tools: { ...DEFAULT_TOOL_SETTINGS, maxTimeoutSeconds: 2 },
    });
    await create(baton, 'tools?toolId=spin', SPIN);
    await agentWith(baton, APP, 'spinner', 'spin', baton.key);
  });
  afterAll(async () => baton?.close());

  it('clamps a tool that asks for a longer timeout: its loop is stopped within the cap', async () => {
    const reply = await say(baton, await thread(baton, 'spinner', baton.key), 'spin', baton.key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    // The sandbox stops it at 2 s less the fifth kept for the trip to the worker; on a cold pool
    // (the worker still starting) the engine's own deadline, 2 s, may come first. Either is the cap.
    expect(reply.body.choices[0].message.content).toMatch(
      /^Failed: Tool 'spin' (did not answer within 2 s\.|could not run: jsFunction spin: spin\(\) did not finish within 1600 ms)/,
    );
  });
});
