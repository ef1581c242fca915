import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresSignals } from '../../src/store/postgres-signals.ts';
import { createTestDatabase, postgresUnavailable, type TestDatabase } from '../helpers/postgres-database.ts';

/**
 * Notices between replicas by LISTEN/NOTIFY. A busy app changes its ledger many times a second:
 * the same notice asked for again while one batch is on its way goes once, in the next batch, so
 * notices cost about one statement per database round trip, and none is lost.
 */
describe.skipIf((await postgresUnavailable()) !== null)('PostgreSQL signals', () => {
  let database: TestDatabase;
  let sender: PostgresSignals;
  let receiver: PostgresSignals;

  beforeAll(async () => {
    database = await createTestDatabase('baton_signals');
    sender = new PostgresSignals(database.url);
    receiver = new PostgresSignals(database.url);
    await Promise.all([sender.start(), receiver.start()]);
  });
  afterAll(async () => {
    await Promise.all([sender?.close(), receiver?.close()]);
    await database?.drop();
  });

  it('sends notices asked for during a batch in one statement, each distinct one once, and loses none', async () => {
    const heard: string[] = [];
    const unsubscribe = receiver.subscribe('ledger', (key) => heard.push(key));
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      // The first goes at once; the 59 asked for while it travels are 3 distinct notices.
      sender.publish('ledger', 'app_a');
      for (let i = 0; i < 59; i++) sender.publish('ledger', `app_${'bcd'[i % 3]}`);
      await until(() => new Set(heard).size === 4);
      const notifies = query.mock.calls.filter(([text]) => typeof text === 'string' && text.includes('pg_notify'));
      expect(notifies).toHaveLength(2);
      expect(notifies[1]?.[1]).toHaveLength(4); // the channel and 3 notices
      expect([...heard].sort()).toEqual(['app_a', 'app_b', 'app_c', 'app_d']);

      // After the batches, a notice asked for again is sent again.
      sender.publish('ledger', 'app_a');
      await until(() => heard.filter((key) => key === 'app_a').length === 2);
    } finally {
      query.mockRestore();
      unsubscribe();
    }
  });
});

async function until(check: () => boolean, withinMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
