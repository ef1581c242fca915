import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { freePort, makeWorkspace, PROCESS_ADMIN_KEY, REPO_ROOT } from '../reliability/baton-process.ts';

/**
 * The log of a real server during an incident: every line about a request carries its request id,
 * its app and the ids of what it touched (thread, turn, call); the engine's warnings carry them
 * too; and no credential is written, whoever quotes it (a client, a provider's error body).
 */

const PROVIDER_KEY = 'vault-provider-key-7f3a9c21e4';
const COOKIE_SECRET = 'cookie-session-secret-91ab';
const QUERY_SECRET = 'query-secret-55d2e1';
const BODY_SECRET = 'body-password-0c77e3';
const SHAPED_SECRET = 'sk-live0123456789abcdefghij';

const lines: Array<Record<string, any>> = [];
const stream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
    done();
  },
});

/** A model provider that refuses every call, quoting the credentials it was sent, as some do. */
let provider: http.Server;
let server: TestBaton;

beforeAll(async () => {
  provider = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            message: `Incorrect API key provided: ${request.headers.authorization ?? ''} (org key ${SHAPED_SECRET})`,
            type: 'invalid_request_error',
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const { port } = provider.address() as AddressInfo;
  server = await startTestBaton(
    {
      providers: { custom: { vault: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: PROVIDER_KEY } } },
      agents: [DEMO_AGENT, { name: 'broken', model: 'vault:some-model' }],
    },
    { logger: { level: 'info', stream } },
  );
});

afterAll(async () => {
  await server.close();
  await new Promise((resolve) => provider.close(resolve));
});

const byRequest = (requestId: string) => lines.filter((line) => line.request_id === requestId);
const completed = (requestId: string) => byRequest(requestId).find((line) => line.msg === 'request completed');

describe('the log of a request', () => {
  let threadId = '';
  let turnId = '';
  let callId = '';
  let appId = '';

  it('carries the caller’s x-request-id, echoed back, and the app once the key is checked', async () => {
    const response = await server.request(
      'POST',
      '/v1/threads',
      { agent: 'refund-desk' },
      { 'x-request-id': 'inc-thread-1' },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('inc-thread-1');
    threadId = response.body.id;
    const me = await server.request('GET', '/v1/me');
    appId = me.body.app.id;
    const line = completed('inc-thread-1');
    expect(line).toMatchObject({ request_id: 'inc-thread-1', app_id: appId, res: { statusCode: 200 } });
    expect(byRequest('inc-thread-1').map((entry) => entry.msg)).toEqual(['incoming request', 'request completed']);
  });

  it('names the thread of the URL and the turn the request started', async () => {
    const response = await server.request(
      'POST',
      `/v1/threads/${threadId}/messages`,
      { content: 'I need approval to process a $500 refund' },
      { 'x-request-id': 'inc-message-1' },
    );
    expect(response.status).toBe(200);
    turnId = response.body.turn_id;
    callId = response.body.choices[0].message.tool_calls[0].id;
    expect(completed('inc-message-1')).toMatchObject({
      request_id: 'inc-message-1',
      app_id: appId,
      thread_id: threadId,
      conversation_id: threadId,
      turn_id: turnId,
    });
  });

  it('names the call of the URL and the turn its result resumed', async () => {
    const response = await server.request(
      'POST',
      `/v1/tool-calls/${callId}/result`,
      { content: '{"approved": true, "approved_by": "ops@example.com"}', is_error: false },
      { 'x-request-id': 'inc-result-1' },
    );
    expect(response.status).toBe(200);
    expect(completed('inc-result-1')).toMatchObject({ app_id: appId, call_id: callId, turn_id: turnId });
  });

  it('makes up an id, unique across processes, when the caller sends none or an unusable one', async () => {
    const plain = await server.request('GET', '/v1/threads?limit=1');
    const generated = plain.headers.get('x-request-id') ?? '';
    expect(generated).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(completed(generated)).toBeDefined();
    const odd = await server.request('GET', '/v1/threads?limit=1', undefined, { 'x-request-id': 'two words' });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("gives the engine's warnings the ids of the request and of the turn", async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'broken' });
    const failed = await server.request(
      'POST',
      `/v1/threads/${thread.body.id}/messages`,
      { content: 'hello' },
      { 'x-request-id': 'inc-failure-1' },
    );
    expect(failed.status).toBe(502);
    const warning = byRequest('inc-failure-1').find((line) => line.msg === 'turn failed');
    expect(warning).toMatchObject({
      level: 40,
      request_id: 'inc-failure-1',
      app_id: appId,
      thread_id: thread.body.id,
      conversation_id: thread.body.id,
      turn_id: expect.stringMatching(/^turn_/),
      code: 'model_error',
    });
    // The provider's answer is there for the incident, without the key it quoted.
    expect(JSON.stringify(warning?.err)).toContain('Incorrect API key provided: Bearer [REDACTED]');
    // What was sent to the provider (the prompt) is left out.
    expect(warning?.err.lastError.requestBodyValues).toBe('[omitted]');
  });

  it('writes no credential, from the headers, the URL, the body or a provider’s error', async () => {
    await server.request(
      'POST',
      `/v1/threads?api_key=${QUERY_SECRET}`,
      { agent: 'refund-desk', password: BODY_SECRET },
      {
        cookie: `session=${COOKIE_SECRET}`,
        'x-api-key': ADMIN_KEY,
      },
    );
    await server.request('GET', '/v1/threads', undefined, {
      authorization: 'Bearer bk_not_a_real_key_but_shaped_like_one',
    });
    const text = lines.map((line) => JSON.stringify(line)).join('\n');
    expect(lines.length).toBeGreaterThan(10);
    for (const secret of [ADMIN_KEY, PROVIDER_KEY, COOKIE_SECRET, QUERY_SECRET, BODY_SECRET, SHAPED_SECRET])
      expect(text, `${secret} is in the log`).not.toContain(secret);
    expect(text).not.toContain('bk_not_a_real_key_but_shaped_like_one');
  });
});

describe('the log of the real baton serve', () => {
  it('writes JSON lines to stdout with the request and app ids, and no key', async () => {
    const workspace = makeWorkspace('baton-incident-logs-');
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      BATON_DATA_DIR: workspace.dataDir,
      BATON_CONFIG: workspace.configFile,
      BATON_ADMIN_KEY: PROCESS_ADMIN_KEY,
      LOG_LEVEL: 'info',
    };
    for (const name of ['NODE_OPTIONS', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID', 'DATABASE_URL'])
      delete env[name];
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = `http://127.0.0.1:${port}`;
      for (let tries = 0; ; tries += 1) {
        const up = await fetch(`${url}/healthz`).then(
          (response) => response.ok,
          () => false,
        );
        if (up) break;
        if (tries > 200 || child.exitCode !== null) throw new Error(`baton serve did not start:\n${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const response = await fetch(`${url}/v1/threads?api_key=${QUERY_SECRET}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${PROCESS_ADMIN_KEY}`,
          'content-type': 'application/json',
          'x-request-id': 'inc-process-1',
        },
        body: JSON.stringify({ agent: 'refund-desk' }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toBe('inc-process-1');
      const completedLine = /"request_id":"inc-process-1"[^\n]*"msg":"request completed"/;
      for (let tries = 0; tries < 100 && !completedLine.test(stdout); tries += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      child.kill('SIGKILL');
      await exited;
      workspace.remove();
    }
    const logged = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>);
    const done = logged.find((line) => line.request_id === 'inc-process-1' && line.msg === 'request completed');
    expect(done, stdout).toMatchObject({ app_id: expect.stringMatching(/^app_/), res: { statusCode: 200 } });
    expect(stdout).not.toContain(PROCESS_ADMIN_KEY);
    expect(stdout).not.toContain(QUERY_SECRET);
  });
});
