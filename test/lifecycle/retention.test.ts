import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsMentioning, tableReadingBackends, type Tables } from './table-reading-backends.ts';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { ManualClock, type TestBaton } from '../helpers/test-baton.ts';

/**
 * Retention (issue 21) on SQLite and PostgreSQL, across a simulated clock: the app's policy (CES
 * App `retention`) and agents' overrides (native `retention`) delete exactly the idle
 * conversations they name, with every row, keep recent ones and ones with a pending call, and
 * blank tool arguments and results while the ledger keeps each call's state and timestamps. Bad
 * durations are a 400 `invalid_retention` naming the field, and change nothing.
 */

const REFUND = 'I need approval to process a $500 refund';
const APP = 'projects/default/locations/global/apps/default';
const DAY = 86_400;
const backends = await tableReadingBackends('baton-retention');

describe.each(backends)('retention on $name', (backend) => {
  const clock = new ManualClock(new Date('2026-03-01T09:00:00.000Z'));
  let server: TestBaton;
  let tables: () => Promise<Tables>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ server, tables, close } = await backend.start(clock));
  }, 60_000);
  afterAll(async () => close?.());

  /** A thread of `agent` whose first call is answered; with `pending`, a second call is left pending. */
  async function thread(agent: string, pending = false): Promise<{ id: string; calls: string[]; turns: string[] }> {
    const created = await server.request('POST', '/v1/threads', { agent });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.id as string;
    const first = await server.request('POST', `/v1/threads/${id}/messages`, { content: REFUND });
    const call = first.body.choices[0].message.tool_calls[0].id as string;
    const answered = await server.request('POST', `/v1/tool-calls/${call}/result`, {
      content: '{"approved": true, "approved_by": "m@x.com"}',
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const calls = [call];
    if (pending) {
      const second = await server.request('POST', `/v1/threads/${id}/messages`, { content: REFUND });
      expect(second.body.choices[0].finish_reason).toBe('tool_use');
      calls.push(second.body.choices[0].message.tool_calls[0].id as string);
    }
    const turns = ((await tables()).turns ?? [])
      .filter((turn) => turn.conversation_id === id)
      .map((turn) => String(turn.id));
    return { id, calls, turns };
  }

  async function exists(id: string): Promise<boolean> {
    return (await server.request('GET', `/v1/threads/${id}`)).status === 200;
  }

  function ledgerRow(all: Tables, callId: string): Record<string, unknown> {
    const row = (all.ledger_entries ?? []).find((entry) => entry.id === callId);
    expect(row, callId).toBeDefined();
    return row!;
  }

  it('applies the app policy and agent overrides field by field, across a simulated clock', async () => {
    // The app: conversations after 30 days, tool data after 7 (the CES App, snake_case accepted as proto names are).
    const patched = await server.request('PATCH', `/v1/${APP}?update_mask=retention`, {
      retention: { conversations_after_days: 30, tool_data_after_days: 7 },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.retention).toEqual({ conversationsAfterDays: 30, toolDataAfterDays: 7 });
    // Agents: one keeps conversations 5 days, one 90 (both inherit the app's 7 days of tool data).
    for (const [name, days] of [
      ['short-lived', 5],
      ['long-lived', 90],
    ] as const) {
      const agent = await server.request('POST', '/v1/agents', {
        ...DEMO_AGENT,
        name,
        retention: { conversations_after_days: days },
      });
      expect(agent.status, JSON.stringify(agent.body)).toBe(201);
      expect(agent.body.retention).toEqual({ conversations_after_days: days });
    }

    const old = await thread('refund-desk');
    const waiting = await thread('refund-desk', true);
    const short = await thread('short-lived');
    const long = await thread('long-lived');
    const resolvedAt = ledgerRow(await tables(), old.calls[0]!).updated_at;

    // Day 6: only the short-lived agent's conversation is past its policy; nothing else changes.
    clock.advance(6 * DAY);
    const day6 = await server.baton.engine.applyRetention();
    expect(day6.apps).toEqual([
      expect.objectContaining({ appId: server.baton.defaultAppId, conversations: 1, toolCalls: 0 }),
    ]);
    expect(await exists(short.id)).toBe(false);
    expect(rowsMentioning(await tables(), [short.id, ...short.turns, ...short.calls])).toEqual([]);
    for (const kept of [old, waiting, long]) expect(await exists(kept.id)).toBe(true);

    // Day 8: tool data older than 7 days is blanked (long-lived inherits the app's field); state and times stay.
    clock.advance(2 * DAY);
    const fresh = await thread('refund-desk');
    const before = await tables();
    const day8 = await server.baton.engine.applyRetention({ toolDataBatch: 1 });
    expect(day8.apps).toEqual([expect.objectContaining({ conversations: 0, toolCalls: 3 })]);
    const after = await tables();
    for (const callId of [old.calls[0]!, waiting.calls[0]!, long.calls[0]!]) {
      const was = ledgerRow(before, callId);
      const row = ledgerRow(after, callId);
      expect(row).toMatchObject({
        state: was.state,
        created_at: was.created_at,
        updated_at: was.updated_at,
        arguments: 'null',
        tool_data_removed_at: expect.any(String),
      });
      expect(String(row.result)).toContain('removed by the retention policy');
      expect(String(row.result)).not.toContain('m@x.com');
      const items = (after.items ?? []).filter((item) => String(item.payload).includes(callId));
      expect(items.length).toBe(2);
      for (const item of items) expect(String(item.payload)).not.toMatch(/m@x\.com|500/);
    }
    expect(ledgerRow(after, old.calls[0]!).updated_at).toEqual(resolvedAt);
    // The pending call and the fresh conversation's call keep their data.
    expect(ledgerRow(after, waiting.calls[1]!)).toMatchObject({ state: 'pending', tool_data_removed_at: null });
    expect(String(ledgerRow(after, fresh.calls[0]!).result)).toContain('m@x.com');

    // Day 31: idle past 30 days goes, with every row; the pending call's conversation, the recent
    // one and the long-lived agent's stay.
    clock.advance(23 * DAY);
    const day31 = await server.baton.engine.applyRetention({ conversationBatch: 1 });
    expect(day31.apps).toEqual([expect.objectContaining({ conversations: 1 })]);
    expect(await exists(old.id)).toBe(false);
    expect(rowsMentioning(await tables(), [old.id, ...old.turns, ...old.calls])).toEqual([]);
    for (const kept of [waiting, long, fresh]) expect(await exists(kept.id), kept.id).toBe(true);
    expect((await server.request('GET', `/v1/tool-calls/${waiting.calls[1]}`)).body.state).toBe('pending');

    // The pending call is answered: that is activity, so its conversation goes 30 days later.
    const answered = await server.request('POST', `/v1/tool-calls/${waiting.calls[1]}/result`, {
      content: '{"approved": false, "approved_by": "m@x.com"}',
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect((await server.baton.engine.applyRetention()).apps.every((app) => app.conversations === 0)).toBe(true);
    expect(await exists(waiting.id)).toBe(true);
    clock.advance(31 * DAY);
    await server.baton.engine.applyRetention();
    expect(await exists(waiting.id)).toBe(false);
    expect(await exists(fresh.id)).toBe(false);
    expect(rowsMentioning(await tables(), [waiting.id, fresh.id, ...waiting.calls])).toEqual([]);
    // Day 62: the long-lived agent's 90 days are not over.
    expect(await exists(long.id)).toBe(true);
    clock.advance(30 * DAY);
    await server.baton.engine.applyRetention();
    expect(await exists(long.id)).toBe(false);

    // Each run that changed something left one retention.applied event.
    const audit = await server.request('GET', '/v1/audit-events?limit=20');
    const runs = (audit.body.data as { action: string; actor: string; counts: Record<string, number> }[]).filter(
      (event) => event.action === 'retention.applied',
    );
    expect(runs.length).toBe(5);
    expect(runs.every((event) => event.actor === 'baton:retention')).toBe(true);
    expect(runs.at(-1)!.counts).toMatchObject({ conversations: 1, turns: 1, ledger_entries: 1 });
    expect(runs.at(-2)!.counts).toMatchObject({ tool_calls_redacted: 3, tool_items_redacted: 6 });
    // Nothing more to do: a run changes nothing and records nothing.
    expect((await server.baton.engine.applyRetention()).apps).toEqual([]);
  });

  it('bad durations are a 400 invalid_retention naming the field, and change nothing', async () => {
    const bad: unknown[] = [0, -3, 1.5, 3651, '30', null];
    for (const days of bad) {
      const created = await server.request('POST', '/v1/agents', {
        ...DEMO_AGENT,
        name: 'bad-retention',
        retention: { tool_data_after_days: days },
      });
      expect(created.status, JSON.stringify(days)).toBe(400);
      expect(created.body.error).toMatchObject({
        code: 'invalid_retention',
        param: 'retention.tool_data_after_days',
      });
      expect(created.body.error.message).toContain('whole number of days from 1 to 3650');
    }
    expect((await server.request('GET', '/v1/agents/bad-retention')).status).toBe(404);

    const agent = await server.request('POST', '/v1/agents', {
      ...DEMO_AGENT,
      name: 'kept-retention',
      retention: { conversations_after_days: 10 },
    });
    expect(agent.status).toBe(201);
    const replaced = await server.request('PUT', '/v1/agents/kept-retention', {
      ...DEMO_AGENT,
      retention: { conversations_after_days: 0 },
    });
    expect(replaced.status).toBe(400);
    expect(replaced.body.error).toMatchObject({
      code: 'invalid_retention',
      param: 'retention.conversations_after_days',
    });
    const unchanged = await server.request('GET', '/v1/agents/kept-retention');
    expect(unchanged.body).toMatchObject({ version: 1, retention: { conversations_after_days: 10 } });

    const appBefore = await server.request('GET', `/v1/${APP}`);
    for (const days of [0, 2.5, 4000, '7']) {
      const patched = await server.request('PATCH', `/v1/${APP}?updateMask=retention.toolDataAfterDays`, {
        retention: { toolDataAfterDays: days },
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(400);
      expect(patched.body.error.status).toBe('INVALID_ARGUMENT');
      expect(patched.body.error.message).toContain('retention.toolDataAfterDays');
      expect(JSON.stringify(patched.body.error.details)).toContain('retention.toolDataAfterDays');
    }
    const appAfter = await server.request('GET', `/v1/${APP}`);
    expect(appAfter.body).toEqual(appBefore.body);
  });
});
