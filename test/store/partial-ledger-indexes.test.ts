import type { Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { recordingSqlite } from '../helpers/recording-sqlite.ts';
import { createLedgerRepo } from '../../src/store/kysely/ledger-repo.ts';
import { migrateToLatest } from '../../src/store/migrations/migrate-to-latest.ts';

const { db, memory, received } = recordingSqlite();

afterAll(() => db.destroy());

/** The indexes SQLite's plan for the last statement received uses. */
function indexesOfLastStatement(): string[] {
  const last = received[received.length - 1];
  if (!last) throw new Error('no statement ran');
  const plan = memory.prepare(`explain query plan ${last.sql}`).all(...last.parameters) as { detail: string }[];
  return plan.flatMap((step) =>
    [...step.detail.matchAll(/USING (?:COVERING )?INDEX (\w+)/g)].map((match) => match[1]!),
  );
}

/** Rows of the calls a partial index holds, having checked that it is partial on `condition`. */
function indexedRows(index: string): number {
  const condition = index === 'ledger_entries_state_deadline_idx' ? 'deadline_at is not null' : "executor = 'worker'";
  const { sql } = memory.prepare('select sql from sqlite_master where name = ?').get(index) as { sql: string };
  expect(sql).toMatch(new RegExp(`where ${condition}$`));
  return (
    memory.prepare(`select count(*) as rows from ledger_entries indexed by ${index} where ${condition}`).get() as {
      rows: number;
    }
  ).rows;
}

describe('the ledger indexes only the calls they serve pay for (migration 0016)', () => {
  it('holds worker calls alone in the worker indexes, calls with a deadline alone in the deadline index, and the queries use them', async () => {
    await migrateToLatest(db as unknown as Kysely<unknown>, 'sqlite');
    const fixed = {
      app_id: "'app_1'",
      conversation_id: "'thread_1'",
      turn_id: "'turn_1'",
      agent_name: "'a'",
      kind: "'client'",
      arguments: "'{}'",
      arguments_hash: "'h'",
      call_index: '0',
      state: "'pending'",
      timeout_policy: "'error_result'",
    };
    const given = ['id', 'tool_name', 'created_at', 'updated_at', 'executor', 'deadline_at'];
    const insert = memory.prepare(
      `insert into ledger_entries (${[...Object.keys(fixed), ...given].join(', ')}) ` +
        `values (${[...Object.values(fixed), ...given.map(() => '?')].join(', ')})`,
    );
    // Calls alone, without their turns and threads: the indexes are what is looked at.
    memory.pragma('foreign_keys = OFF');
    for (let index = 0; index < 300; index++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString();
      insert.run(`call_c${index}`, 'lookup', at, at, 'client', null);
    }
    insert.run('call_w1', 'crm', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', 'worker', null);
    insert.run(
      'call_d1',
      'lookup',
      '2026-01-02T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
      'client',
      '2026-01-03T00:00:00.000Z',
    );
    memory.prepare('analyze').run();

    expect(indexedRows('ledger_entries_worker_claim_idx')).toBe(1);
    expect(indexedRows('ledger_entries_worker_lease_idx')).toBe(1);
    expect(indexedRows('ledger_entries_state_deadline_idx')).toBe(1);

    const ledger = createLedgerRepo(db, 'sqlite');
    const now = '2026-01-04T00:00:00.000Z';
    const claimed = await db.transaction().execute((tx) =>
      createLedgerRepo(tx, 'sqlite').claim({
        appId: 'app_1',
        tools: ['crm'],
        limit: 5,
        now,
        expiresAt: '2026-01-04T00:05:00.000Z',
        holder: 'w',
        keyId: 'key_1',
        newToken: () => 'lease_1',
      }),
    );
    expect(claimed.map((entry) => entry.id)).toEqual(['call_w1']);
    // The claim's last statement is the update by id; its candidates were read just before it.
    const candidates = received.findLast((statement) => statement.sql.startsWith('select "id" from "ledger_entries"'));
    expect(candidates?.sql).toContain(`"executor" = 'worker'`);
    received.push(candidates!);
    expect(indexesOfLastStatement()).toContain('ledger_entries_worker_claim_idx');

    expect((await ledger.listLapsedLeases('2026-01-05T00:00:00.000Z', 10)).map((entry) => entry.id)).toEqual([
      'call_w1',
    ]);
    expect(indexesOfLastStatement()).toContain('ledger_entries_worker_lease_idx');

    expect(await ledger.hasWorkerCalls('app_1', 'crm')).toBe(true);
    expect(indexesOfLastStatement()).toContain('ledger_entries_worker_claim_idx');

    expect((await ledger.listDue(now, 10)).map((entry) => entry.id)).toEqual(['call_d1']);
    expect(indexesOfLastStatement()).toContain('ledger_entries_state_deadline_idx');
  });
});
