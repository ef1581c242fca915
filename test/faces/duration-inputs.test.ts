import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATION_RANGES } from '../../src/domain/duration-ranges.ts';
import { loadConfig } from '../../src/server/config.ts';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { clientFunctionTool, expectGoogleError, violatedField } from './ces/ces-test-client.ts';

const APP = 'projects/default/locations/global/apps/default';
const DAY = 86_400;

/** A JSON value or raw JSON text (for 1e999, which JSON.stringify cannot write). */
type Value = number | string | { raw: string };

function jsonOf(value: Value): string {
  return typeof value === 'object' ? value.raw : JSON.stringify(value);
}

/** Numbers of seconds a pending call's deadline refuses, in every face that takes one. */
const BAD_SECONDS: Value[] = [
  1e308,
  { raw: '1e999' },
  -1,
  0,
  0.0009,
  DURATION_RANGES.pendingCall.max + 0.001,
  'NaN',
  'Infinity',
  '1e308',
  '30',
];
/** The boundaries and a fraction, all accepted. */
const GOOD_SECONDS = [DURATION_RANGES.pendingCall.min, 1.5, DURATION_RANGES.pendingCall.max];

/** protobuf Duration strings no CES duration accepts. */
const BAD_DURATIONS: Value[] = [
  '99999999999999999999s',
  '1e308s',
  '-1s',
  '0s',
  '0.0001s',
  'NaNs',
  'Infinitys',
  '30',
  '1.5',
  '1.1234567891s',
  30,
];

/**
 * Every duration input has one documented range (src/domain/duration-ranges.ts); outside it the
 * request is a 400 naming the field and the range, in the face's own format, and nothing is stored.
 */
describe('duration inputs: one range each, a 400 outside it', () => {
  let baton: TestBaton;
  let threadId: string;
  beforeAll(async () => {
    baton = await startTestBaton();
    threadId = (await baton.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id;
  });
  afterAll(async () => baton?.close());

  const raw = (method: string, path: string, json: string) =>
    baton.request(method, path, json, { 'content-type': 'application/json' });

  it("agents API: tool_timeout_seconds and a tool's timeout_seconds", async () => {
    for (const value of BAD_SECONDS) {
      const agent = await raw(
        'POST',
        '/v1/agents',
        `{"name":"a1","model":"scripted:auto","tool_timeout_seconds":${jsonOf(value)}}`,
      );
      expect(agent.status, jsonOf(value)).toBe(400);
      expect(agent.body.error.param, jsonOf(value)).toBe('tool_timeout_seconds');
      expect(agent.body.error.message).toContain('from 0.001 to 2592000 (30 days)');
      const tool = await raw(
        'POST',
        '/v1/agents',
        `{"name":"a2","model":"scripted:auto","tools":[{"name":"t","timeout_seconds":${jsonOf(value)}}]}`,
      );
      expect(tool.status, jsonOf(value)).toBe(400);
      expect(tool.body.error.param, jsonOf(value)).toBe('tools[0].timeout_seconds');
      expect(tool.body.error.message).toContain('from 0.001 to 2592000 (30 days)');
    }
    expect((await baton.request('GET', '/v1/agents/a1')).status).toBe(404);
    for (const [index, seconds] of GOOD_SECONDS.entries()) {
      const created = await baton.request('POST', '/v1/agents', {
        name: `good${index}`,
        model: 'scripted:auto',
        tool_timeout_seconds: seconds,
        tools: [{ name: 't', timeout_seconds: seconds }],
      });
      expect(created.status, String(seconds)).toBe(201);
      expect(created.body.tool_timeout_seconds).toBe(seconds);
      expect(created.body.tools[0].timeout_seconds).toBe(seconds);
    }
    expect((await baton.request('POST', '/v1/agents', { name: 'none', model: 'scripted:auto' })).status).toBe(201);
    const cleared = await baton.request('PUT', '/v1/agents/good1', {
      model: 'scripted:auto',
      tool_timeout_seconds: null,
    });
    expect(cleared.body.tool_timeout_seconds).toBeNull();
  });

  it("threads: a message's tool_timeout_seconds and its tools' timeout_seconds", async () => {
    for (const value of BAD_SECONDS) {
      const message = await raw(
        'POST',
        `/v1/threads/${threadId}/messages`,
        `{"content":"hello","tool_timeout_seconds":${jsonOf(value)}}`,
      );
      expect(message.status, jsonOf(value)).toBe(400);
      expect(message.body.error).toMatchObject({ code: 'invalid_request', param: 'tool_timeout_seconds' });
      expect(message.body.error.message).toContain('from 0.001 to 2592000 (30 days)');
      const tool = await raw(
        'POST',
        `/v1/threads/${threadId}/messages`,
        `{"content":"hello","tools":[{"name":"t","timeout_seconds":${jsonOf(value)}}]}`,
      );
      expect(tool.status, jsonOf(value)).toBe(400);
      expect(tool.body.error.param).toBe('tools[0].timeout_seconds');
    }
    expect((await baton.request('GET', `/v1/threads/${threadId}/messages`)).body.data).toEqual([]);
  });

  it('threads: the longest deadline is taken and stored as a date 30 days on', async () => {
    const thread = await baton.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const before = Date.now();
    const message = await baton.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'I need approval to process a $500 refund',
      tool_timeout_seconds: DURATION_RANGES.pendingCall.max,
    });
    expect(message.status, JSON.stringify(message.body)).toBe(200);
    const [pending] = (await baton.request('GET', `/v1/threads/${thread.body.id}`)).body.pending_tool_calls;
    const deadline = Date.parse(pending.deadline_at);
    expect(deadline).toBeGreaterThanOrEqual(before + 30 * DAY * 1000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 30 * DAY * 1000);
  });

  const cesCases = [
    {
      what: 'a clientFunction Tool',
      path: `/v1/${APP}/tools?toolId=timed`,
      field: 'tool.timeout',
      body: clientFunctionTool('timed'),
      max: '2592000s',
      words: '30 days',
    },
    {
      what: 'a jsFunction Tool',
      path: `/v1/${APP}/tools?toolId=jstimed`,
      field: 'tool.timeout',
      body: { jsFunction: { name: 'jstimed', jsCode: 'function jstimed() { return 1; }' } },
      max: '600s',
      words: '10 minutes',
    },
    {
      what: 'an mcpToolset',
      path: `/v1/${APP}/toolsets?toolsetId=mcptimed`,
      field: 'toolset.timeout',
      body: { mcpToolset: { serverAddress: 'https://tools.example.com/mcp/' } },
      max: '600s',
      words: '10 minutes',
    },
  ];

  for (const { what, path, field, body, max, words } of cesCases) {
    it(`CES: the timeout of ${what} (a protobuf Duration, up to ${max})`, async () => {
      const over = `${Number(max.slice(0, -1)) + 0.001}s`;
      for (const value of [...BAD_DURATIONS, over]) {
        const error = expectGoogleError(
          await raw('POST', path, JSON.stringify({ ...body, timeout: value })),
          400,
          'INVALID_ARGUMENT',
        );
        expect(violatedField(error), jsonOf(value)).toBe(field);
        // A string names this kind's range; a number fails the type check, whose message names both.
        expect(error.message, jsonOf(value)).toContain(`"${max}" (${words})`);
        expect(error.message).toContain('"0.001s"');
      }
      for (const value of ['0.001s', '1.5s', max]) {
        const created = await baton.request('POST', path, { ...body, timeout: value });
        expect(created.status, `${value}: ${JSON.stringify(created.body)}`).toBe(200);
        expect(created.body.timeout).toBe(value);
        expect((await baton.request('DELETE', `/v1/${created.body.name}`)).status).toBe(200);
      }
    });
  }

  it('CES: an update mask that sets an out-of-range timeout is refused and changes nothing', async () => {
    const tool = await baton.request('POST', `/v1/${APP}/tools?toolId=masked`, {
      ...clientFunctionTool('masked'),
      timeout: '5s',
    });
    const error = expectGoogleError(
      await baton.request('PATCH', `/v1/${tool.body.name}?updateMask=timeout`, { timeout: '99999999999999999999s' }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(error)).toBe('tool.timeout');
    expect((await baton.request('GET', `/v1/${tool.body.name}`)).body.timeout).toBe('5s');
  });

  it('MCP: create_tool with an out-of-range timeout is a tool error naming the field', async () => {
    const response = await fetch(`${baton.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'create_tool',
          arguments: {
            parent: APP,
            toolId: 'viamcp',
            tool: { ...clientFunctionTool('viamcp'), timeout: '99999999999999999999s' },
          },
        },
      }),
    });
    const body = (await response.json()) as any;
    expect(body.result.isError).toBe(true);
    const error = JSON.parse(body.result.content[0].text).error;
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(violatedField(error)).toBe('tool.timeout');
  });
});

describe('durations stored before the ranges existed', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton();
  });
  afterAll(async () => baton?.close());

  it('an agent row saying 1e308 seconds gives a deadline 30 days on, not a failed turn', async () => {
    const { store, defaultAppId } = baton.baton;
    const agent = (await store.agents.get(defaultAppId, 'refund-desk'))!;
    const legacy = { ...agent.definition, toolTimeoutSeconds: 1e308 };
    await store.agents.update(defaultAppId, 'refund-desk', agent.version, legacy, new Date().toISOString());
    const thread = await baton.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const before = Date.now();
    const message = await baton.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'I need approval to process a $500 refund',
    });
    expect(message.status, JSON.stringify(message.body)).toBe(200);
    const [pending] = (await baton.request('GET', `/v1/threads/${thread.body.id}`)).body.pending_tool_calls;
    expect(Date.parse(pending.deadline_at)).toBeGreaterThanOrEqual(before + 30 * DAY * 1000);
    expect(Date.parse(pending.deadline_at)).toBeLessThanOrEqual(Date.now() + 30 * DAY * 1000);
  });
});

describe('duration settings of baton.yaml', () => {
  const load = (yaml: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-durations-'));
    writeFileSync(join(dir, 'baton.yaml'), yaml);
    return () => loadConfig({}, dir);
  };

  it.each([
    ['engine.stale_turn_seconds', '2', 'from 3 to 86400 (1 day)'],
    ['engine.stale_turn_seconds', '86401', 'from 3 to 86400 (1 day)'],
    ['engine.stale_turn_seconds', '1e308', 'from 3 to 86400 (1 day)'],
    ['engine.stale_turn_seconds', '.nan', 'from 3 to 86400 (1 day)'],
    ['engine.stale_turn_seconds', '"99999999999999999999"', 'from 3 to 86400 (1 day)'],
    ['engine.turn_lease_seconds', '2', 'from 3 to 86400 (1 day)'],
    ['engine.sweep_interval_ms', '1e10', 'from 10 to 600000 (10 minutes)'],
    ['engine.sweep_interval_ms', '0', 'from 10 to 600000 (10 minutes)'],
    ['engine.sweep_interval_ms', '-5', 'from 10 to 600000 (10 minutes)'],
    ['engine.sweep_interval_ms', '1.5', 'a whole number'],
    ['server.idempotency_lease_seconds', '0', 'from 1 to 600 (10 minutes)'],
    ['server.idempotency_lease_seconds', '1e308', 'from 1 to 600 (10 minutes)'],
    ['responses.tool_timeout_seconds', '0', 'from 0.001 to 2592000 (30 days), or null for no deadline'],
    ['responses.tool_timeout_seconds', '2592001', 'from 0.001 to 2592000 (30 days), or null for no deadline'],
    ['responses.tool_timeout_seconds', '.inf', 'from 0.001 to 2592000 (30 days), or null for no deadline'],
  ])('%s: %s is refused, naming the field and the range', (field, value, range) => {
    const [section, key] = field.split('.');
    expect(load(`${section}:\n  ${key}: ${value}\n`)).toThrow(
      new RegExp(`${section}\\.${key}: .*${range.replace(/[()]/g, '\\$&')}`),
    );
  });

  it('accepts the boundaries', () => {
    const config = load('engine:\n  stale_turn_seconds: 86400\n  sweep_interval_ms: 10\n')();
    expect(config.staleTurnSeconds).toBe(86_400);
    expect(config.sweepIntervalMs).toBe(10);
  });

  it('reads the turn lease by its name or its older one (not both), and the takeover cap', () => {
    const config = load('engine:\n  turn_lease_seconds: 20\n  max_turn_takeovers: 0\n')();
    expect(config.staleTurnSeconds).toBe(20);
    expect(config.maxTurnTakeovers).toBe(0);
    expect(load('engine:\n  turn_lease_seconds: 20\n')().maxTurnTakeovers).toBe(2);
    expect(load('engine:\n  stale_turn_seconds: 30\n')().staleTurnSeconds).toBe(30);
    expect(load('engine:\n  turn_lease_seconds: 20\n  stale_turn_seconds: 30\n')).toThrow(
      /give engine\.turn_lease_seconds or its older name engine\.stale_turn_seconds, not both/,
    );
    expect(load('engine:\n  max_turn_takeovers: 11\n')).toThrow(/max_turn_takeovers/);
    // Prepared statements on PostgreSQL: on unless turned off (PgBouncer in transaction mode).
    expect(load('engine: {}\n')().postgres.preparedStatements).toBe(true);
    expect(load('database:\n  prepared_statements: false\n')().postgres.preparedStatements).toBe(false);
  });

  it('reads the graceful shutdown settings: drain timeout (0-3600 s) and the delay before the listener closes (0-600 s)', () => {
    expect(load('server: {}\n')().drain).toEqual({ timeoutSeconds: 30, delaySeconds: 0 });
    expect(load('server:\n  drain_timeout_seconds: 5\n  shutdown_delay_seconds: 3\n')().drain).toEqual({
      timeoutSeconds: 5,
      delaySeconds: 3,
    });
    expect(load('server:\n  drain_timeout_seconds: 3601\n')).toThrow(/server\.drain_timeout_seconds/);
    expect(load('server:\n  shutdown_delay_seconds: -1\n')).toThrow(/server\.shutdown_delay_seconds/);
  });

  it('reads how long a waiting request may keep its input unwritten (0 writes it first; at most 10 s)', () => {
    expect(load('engine: {}\n')().deferredWriteMs).toBe(250);
    expect(load('engine:\n  deferred_write_ms: 0\n')().deferredWriteMs).toBe(0);
    expect(load('engine:\n  deferred_write_ms: 10000\n')().deferredWriteMs).toBe(10_000);
    expect(load('engine:\n  deferred_write_ms: 10001\n')).toThrow(/engine\.deferred_write_ms/);
    expect(load('engine:\n  deferred_write_ms: -1\n')).toThrow(/engine\.deferred_write_ms/);
  });

  it('reads the deadline of unanswered Responses calls: one day unless set, null for none', () => {
    expect(load('engine: {}\n')().responsesToolTimeoutSeconds).toBe(86_400);
    expect(load('responses:\n  tool_timeout_seconds: 600\n')().responsesToolTimeoutSeconds).toBe(600);
    expect(load('responses:\n  tool_timeout_seconds: "${T:-90}"\n')().responsesToolTimeoutSeconds).toBe(90);
    expect(load('responses:\n  tool_timeout_seconds: null\n')().responsesToolTimeoutSeconds).toBeNull();
    expect(load('responses:\n  tool_timeout: 600\n')).toThrow(/responses/);
  });

  it("refuses an agent tool's timeout_seconds past 30 days when the file is read", () => {
    const yaml =
      'agents:\n  - name: a\n    model: scripted:auto\n    tools:\n      - name: t\n        timeout_seconds: 1e308\n';
    expect(load(yaml)).toThrow(
      /agents\[0\]\.tools\[0\]\.timeout_seconds: must be a number of seconds from 0\.001 to 2592000/,
    );
  });
});
