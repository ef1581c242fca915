import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../../src/server/config.ts';
import type { TelemetrySettings } from '../../../src/server/telemetry/telemetry-settings.ts';
import { parseExposition, promtoolProblems, valueOf, type Sample } from '../../helpers/prometheus-text.ts';
import { lookupPriceTool, RecordingTools, refundTool } from '../../helpers/recording-tools.ts';
import { weatherTool } from '../../helpers/test-agents.ts';
import { ADMIN_KEY, agentWith, ManualClock, startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';

/**
 * `/metrics` on the API's port, to the metrics token only: the exposition passes `promtool check
 * metrics`, each metric moves when its event happens, labels carry no ids or raw paths, and
 * whoever lacks the token (an API key included) is refused.
 */

const TOKEN = 'metrics-token-0123456789abcdef';
const SEED = 'I need approval to process a $500 refund';
const APPROVED = '{"approved": true, "approved_by": "manager@company.com"}';

const program = {
  rules: [
    { when: { user: 'price' }, call: { tool: 'lookup_price', arguments: { sku: 'A-1' } } },
    { when: { user: 'refund' }, call: { tool: 'refund', arguments: { amount: 5 } } },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

function settings(metrics: TelemetrySettings['metrics']): TelemetrySettings {
  return { metrics, tracing: null };
}

describe('/metrics on the API port, behind the metrics token', () => {
  const clock = new ManualClock(new Date('2026-05-01T08:00:00.000Z'));
  const tools = new RecordingTools([lookupPriceTool, refundTool]);
  let server: TestBaton;

  beforeAll(async () => {
    server = await startTestBaton(
      {
        telemetry: settings({ token: TOKEN, listen: null }),
        scripted: { desk: program },
        agents: [
          DEMO_AGENT,
          agentWith({ name: 'quick-desk', tool_timeout_seconds: 60 }),
          { name: 'desk', model: 'scripted:desk', tools: [weatherTool] },
        ],
      },
      { tools, clock },
    );
  });
  afterAll(async () => server?.close());

  async function scrape(): Promise<{ text: string; samples: Sample[] }> {
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    return { text, samples: parseExposition(text) };
  }

  async function send(thread: string, content: unknown) {
    const response = await server.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  }

  async function thread(agent: string): Promise<string> {
    return (await server.request('POST', '/v1/threads', { agent })).body.id;
  }

  it('refuses a scrape without the token, with another token, or with an API key', async () => {
    for (const authorization of [undefined, `Bearer ${ADMIN_KEY}`, `Bearer ${TOKEN}x`, TOKEN, `Basic ${TOKEN}`]) {
      const response = await fetch(`${server.url}/metrics`, {
        headers: authorization === undefined ? {} : { authorization },
      });
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code).toBe('invalid_metrics_token');
    }
    // The token opens /metrics only: it is no API key.
    const api = await fetch(`${server.url}/v1/threads`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(api.status).toBe(401);
  });

  it('serves an exposition that promtool accepts, with the process metrics and the event-loop lag', async () => {
    // Something of every kind first, so every family has samples to check.
    const id = await thread('refund-desk');
    await send(id, SEED);
    const { text, samples } = await scrape();
    expect(valueOf(samples, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(samples.some((sample) => sample.name === 'nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect(samples.some((sample) => sample.name === 'process_cpu_seconds_total')).toBe(true);
    const checked = promtoolProblems(text);
    if (checked === null) {
      console.log('promtool check metrics skipped: /usr/bin/promtool is missing (apt-get install prometheus)');
      return;
    }
    expect(checked.output).toBe('');
    expect(checked.ok).toBe(true);
  });

  it('counts a pause and a resume: turn runs, model steps, tokens, requests by route, database work, pending calls', async () => {
    const before = (await scrape()).samples;
    const id = await thread('refund-desk');
    const paused = await send(id, SEED);
    const callId = paused.choices[0].message.tool_calls[0].id as string;

    const pending = (await scrape()).samples;
    const delta = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
      valueOf(samples, name, labels) - valueOf(before, name, labels);
    expect(delta(pending, 'baton_turn_runs_total', { run: 'start', outcome: 'paused' })).toBe(1);
    expect(delta(pending, 'baton_turn_run_duration_seconds_count', { run: 'start', outcome: 'paused' })).toBe(1);
    expect(
      delta(pending, 'baton_model_step_duration_seconds_count', {
        provider: 'scripted',
        model: 'auto',
        outcome: 'tool_use',
      }),
    ).toBe(1);
    expect(
      delta(pending, 'baton_model_tokens_total', { provider: 'scripted', model: 'auto', type: 'input' }),
    ).toBeGreaterThan(0);
    expect(
      delta(pending, 'baton_model_tokens_total', { provider: 'scripted', model: 'auto', type: 'output' }),
    ).toBeGreaterThan(0);
    expect(
      delta(pending, 'baton_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/threads/:id/messages',
        status_code: '200',
      }),
    ).toBe(1);
    expect(delta(pending, 'baton_db_statement_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    expect(delta(pending, 'baton_db_connection_wait_seconds_count')).toBeGreaterThan(0);
    expect(valueOf(pending, 'baton_pending_calls', { agent: 'refund-desk', kind: 'client', state: 'waiting' })).toBe(
      valueOf(before, 'baton_pending_calls', { agent: 'refund-desk', kind: 'client', state: 'waiting' }) + 1,
    );
    expect(delta(pending, 'baton_pending_call_age_seconds_count', { kind: 'client' })).toBe(1);

    await send(id, [{ type: 'tool_result', tool_call_id: callId, content: APPROVED }]);
    const after = (await scrape()).samples;
    expect(delta(after, 'baton_turn_runs_total', { run: 'resume', outcome: 'completed' })).toBe(1);
    expect(delta(after, 'baton_model_step_duration_seconds_count', { provider: 'scripted', outcome: 'stop' })).toBe(1);
    expect(delta(after, 'baton_http_request_duration_seconds_count', { route: '/v1/threads/:id/messages' })).toBe(2);
    // Answered: no longer pending.
    expect(valueOf(after, 'baton_pending_calls', { agent: 'refund-desk', state: 'waiting' })).toBe(
      valueOf(before, 'baton_pending_calls', { agent: 'refund-desk', state: 'waiting' }),
    );
    expect(valueOf(after, 'baton_turns_running')).toBe(0);
  });

  it('times the tools Baton runs by kind and outcome: a server tool, then an approved one', async () => {
    const before = (await scrape()).samples;
    await send(await thread('desk'), 'price');
    const refund = await send(await thread('desk'), 'refund');
    const approvalId = refund.choices[0].message.tool_calls[0].id as string;
    const waiting = (await scrape()).samples;
    expect(valueOf(waiting, 'baton_pending_calls', { agent: 'desk', kind: 'approval', state: 'waiting' })).toBe(1);
    const decided = await server.request('POST', `/v1/tool-calls/${approvalId}/decision`, { approve: true });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    const after = (await scrape()).samples;
    const delta = (labels: Record<string, string>) =>
      valueOf(after, 'baton_tool_run_duration_seconds_count', labels) -
      valueOf(before, 'baton_tool_run_duration_seconds_count', labels);
    expect(delta({ kind: 'server', outcome: 'ok' })).toBe(1);
    expect(delta({ kind: 'approved', outcome: 'ok' })).toBe(1);
    expect(valueOf(after, 'baton_pending_calls', { agent: 'desk' })).toBe(0);
  });

  it('tells calls whose deadline passed from the others, and counts their age in the histogram’s buckets', async () => {
    const id = await thread('quick-desk');
    await send(id, SEED);
    clock.advance(120); // its 60 s deadline passed; the sweeper is off here
    const { samples } = await scrape();
    expect(valueOf(samples, 'baton_pending_calls', { agent: 'quick-desk', kind: 'client', state: 'overdue' })).toBe(1);
    expect(valueOf(samples, 'baton_pending_calls', { agent: 'quick-desk', state: 'waiting' })).toBe(0);
    // 120 s old: above the 60 s bucket, within the 300 s one.
    const bucket = (le: string) =>
      samples.find(
        (sample) =>
          sample.name === 'baton_pending_call_age_seconds_bucket' &&
          sample.labels.kind === 'client' &&
          sample.labels.le === le,
      )?.value ?? 0;
    const count = valueOf(samples, 'baton_pending_call_age_seconds_count', { kind: 'client' });
    expect(bucket('300') - bucket('60')).toBeGreaterThanOrEqual(1);
    expect(bucket('+Inf')).toBe(count);
    expect(valueOf(samples, 'baton_pending_call_age_seconds_sum', { kind: 'client' })).toBeGreaterThanOrEqual(120);
  });

  it('labels routes by pattern and carries no ids or raw paths in any label', async () => {
    const id = await thread('refund-desk');
    await server.request('GET', `/v1/threads/${id}`);
    await server.request('GET', `/v1/nothing/here/${id}`);
    const { samples } = await scrape();
    expect(
      valueOf(samples, 'baton_http_request_duration_seconds_count', { route: '/v1/threads/:id', method: 'GET' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      valueOf(samples, 'baton_http_request_duration_seconds_count', { route: 'unmatched', status_code: '404' }),
    ).toBe(1);
    const idLike = /(^|[^a-z])(thread|turn|call|app|key|msg|item|resp|lease|conv)_[A-Za-z0-9]{6,}/;
    for (const sample of samples) {
      for (const [label, value] of Object.entries(sample.labels)) {
        expect(value, `${sample.name}{${label}}`).not.toMatch(idLike);
        expect(value, `${sample.name}{${label}}`).not.toContain(id);
        if (label === 'route') expect(value === 'unmatched' || !/\/(thread|turn|call)_/.test(value)).toBe(true);
      }
    }
  });
});

describe('/metrics off, and on an address of its own', () => {
  it('is not served at all without a token or an address: an unknown route, as any other', async () => {
    const server = await startTestBaton();
    try {
      const asKey = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(asKey.status).toBe(404);
      expect(((await asKey.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
      // Without a key, like every path that is no public one: authentication comes first.
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      expect(server.baton.metricsUrl).toBeNull();
    } finally {
      await server.close();
    }
  });

  it('with metrics.listen, is served on that address only; with a token as well, only to it', async () => {
    const open = await startTestBaton({ telemetry: settings({ token: null, listen: { host: '127.0.0.1', port: 0 } }) });
    const guarded = await startTestBaton({
      telemetry: settings({ token: TOKEN, listen: { host: '127.0.0.1', port: 0 } }),
    });
    try {
      const url = open.baton.metricsUrl;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const scraped = await fetch(url!);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('baton_turn_runs_total');
      expect((await fetch(url!.replace('/metrics', '/other'))).status).toBe(404);
      // Not on the API's port.
      expect((await fetch(`${open.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(
        404,
      );

      const guardedUrl = guarded.baton.metricsUrl!;
      expect((await fetch(guardedUrl)).status).toBe(401);
      expect((await fetch(guardedUrl, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(401);
      expect((await fetch(guardedUrl, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
      // On the API's port the token is no key: refused before any route is looked up.
      expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
        401,
      );
    } finally {
      await open.close();
      await guarded.close();
    }
    // Closed with its Baton.
    await expect(fetch(open.baton.metricsUrl!)).rejects.toThrow();
  });
});
