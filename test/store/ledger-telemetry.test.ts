import { describe, expect, it } from 'vitest';
import type { PendingCallGroup } from '../../src/domain/queries.ts';
import { backends, useSharedStore, withFreshStore } from './store-backends.ts';
import { ledgerEntry, seedTurn } from './store-fixtures.ts';

/**
 * What the ledger keeps and answers for traces and metrics, on every backend: the trace context
 * of the run that paused on a call, read back with the call by whoever resumes it; and the
 * pending calls of every app counted by agent, kind, deadline and age bucket, with their ages'
 * sum, in one grouped read (`summarisePending`, what a metrics scrape asks).
 */

const NOW = '2026-03-10T12:00:00.000Z';
const BOUNDS = [1, 5, 30] as const;
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** An instant `seconds` before NOW. */
function ago(seconds: number): string {
  return new Date(Date.parse(NOW) - seconds * 1000).toISOString();
}

function sortGroups(groups: PendingCallGroup[]): PendingCallGroup[] {
  return [...groups].sort((a, b) =>
    `${a.agentName}/${a.kind}/${a.overdue}/${a.ageBucket}`.localeCompare(
      `${b.agentName}/${b.kind}/${b.overdue}/${b.ageBucket}`,
    ),
  );
}

describe.each(backends)('ledger rows for telemetry ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('keeps the trace context of the run that paused on a call, and reads it back with the call', async () => {
    const { app, agent, turn } = await seedTurn(store());
    const traced = ledgerEntry(turn, agent.name, { callIndex: 0, traceContext: TRACEPARENT });
    const untraced = ledgerEntry(turn, agent.name, { callIndex: 1 });
    await store().ledger.insert([traced, untraced]);
    expect(await store().ledger.get(app.id, traced.id)).toEqual(traced);
    // A call paused on without tracing has no such field at all: records keep their shape.
    const plain = await store().ledger.get(app.id, untraced.id);
    expect(plain).toEqual(untraced);
    expect(plain && 'traceContext' in plain).toBe(false);
    const withCalls = await store().turns.getWithCalls(turn.id);
    expect(withCalls?.calls.map((call) => call.traceContext)).toEqual([TRACEPARENT, undefined]);
    expect((await store().ledger.listByTurn(turn.id)).map((call) => call.traceContext)).toEqual([
      TRACEPARENT,
      undefined,
    ]);
  });

  it('counts the pending calls of every app by agent, kind, deadline and age, with the sum of their ages', async () => {
    await withFreshStore(backend, async (fresh) => {
      const one = await seedTurn(fresh);
      const other = await seedTurn(fresh);
      const entries = [
        // agent "desk", client calls: 0.5 s (bucket 0), exactly 5 s (bucket 1: age ≤ 5), 10 s (bucket 2)
        ledgerEntry(one.turn, 'desk', { callIndex: 0, createdAt: ago(0.5), updatedAt: ago(0.5) }),
        ledgerEntry(one.turn, 'desk', { callIndex: 1, createdAt: ago(5), updatedAt: ago(5) }),
        ledgerEntry(one.turn, 'desk', { callIndex: 2, createdAt: ago(10), updatedAt: ago(10) }),
        // its deadline passed: overdue, older than every bound (bucket 3), across midnight (12 h 10 s)
        ledgerEntry(one.turn, 'desk', {
          callIndex: 3,
          createdAt: ago(12 * 3600 + 10),
          updatedAt: ago(12 * 3600 + 10),
          deadlineAt: ago(60),
        }),
        // a deadline still ahead is not overdue
        ledgerEntry(one.turn, 'desk', {
          callIndex: 4,
          createdAt: ago(2),
          updatedAt: ago(2),
          deadlineAt: new Date(Date.parse(NOW) + 60_000).toISOString(),
        }),
        // another app, another agent, an approval
        ledgerEntry(other.turn, 'reviewer', { kind: 'approval', createdAt: ago(40), updatedAt: ago(40) }),
        // resolved rows are not pending: never counted
        ledgerEntry(other.turn, 'reviewer', {
          callIndex: 1,
          state: 'completed',
          result: [],
          submittedAt: ago(1),
          createdAt: ago(3),
          updatedAt: ago(1),
        }),
      ];
      await fresh.ledger.insert(entries);

      const groups = sortGroups(await fresh.ledger.summarisePending(NOW, BOUNDS));
      expect(groups.map(({ ageSecondsSum: _sum, ...group }) => group)).toEqual([
        { agentName: 'desk', kind: 'client', overdue: false, ageBucket: 0, count: 1 },
        { agentName: 'desk', kind: 'client', overdue: false, ageBucket: 1, count: 2 },
        { agentName: 'desk', kind: 'client', overdue: false, ageBucket: 2, count: 1 },
        { agentName: 'desk', kind: 'client', overdue: true, ageBucket: 3, count: 1 },
        { agentName: 'reviewer', kind: 'approval', overdue: false, ageBucket: 3, count: 1 },
      ]);
      const sums = groups.map((group) => group.ageSecondsSum);
      const expected = [0.5, 5 + 2, 10, 12 * 3600 + 10, 40];
      sums.forEach((sum, index) => expect(sum).toBeCloseTo(expected[index]!, 3));
    });
  });

  it('answers an empty list when nothing is pending, and puts every call in one bucket without bounds', async () => {
    await withFreshStore(backend, async (fresh) => {
      expect(await fresh.ledger.summarisePending(NOW, BOUNDS)).toEqual([]);
      const { turn } = await seedTurn(fresh);
      await fresh.ledger.insert([ledgerEntry(turn, 'desk', { createdAt: ago(3), updatedAt: ago(3) })]);
      const [group] = await fresh.ledger.summarisePending(NOW, []);
      expect(group).toMatchObject({ agentName: 'desk', ageBucket: 0, count: 1 });
      expect(group?.ageSecondsSum).toBeCloseTo(3, 3);
    });
  });
});
