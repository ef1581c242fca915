import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import type { DatabaseObserver } from '../../src/store/database-observer.ts';
import { createTestDatabase } from '../helpers/postgres-database.ts';
import { backends, type StoreBackend } from './store-backends.ts';
import { seedTurn } from './store-fixtures.ts';

/**
 * A store opened with a `DatabaseObserver` (metrics on) reports every statement it runs, with
 * BEGIN and COMMIT, and every wait for a connection, on every backend; the repositories work the
 * same through it.
 */

class RecordingObserver implements DatabaseObserver {
  statements: Array<{ seconds: number; failed: boolean }> = [];
  requested = 0;
  handedOver: Array<{ seconds: number; acquired: boolean }> = [];
  statementRan(seconds: number, failed: boolean): void {
    this.statements.push({ seconds, failed });
  }
  connectionRequested(): void {
    this.requested += 1;
  }
  connectionHandedOver(seconds: number, acquired: boolean): void {
    this.handedOver.push({ seconds, acquired });
  }
}

async function openObserved(backend: StoreBackend, observer: DatabaseObserver) {
  if (backend.options.kind !== 'postgres')
    return { store: await openStore(backend.options, observer), drop: async () => {} };
  const database = await createTestDatabase('baton_observed');
  return {
    store: await openStore({ ...backend.options, connectionString: database.url }, observer),
    drop: () => database.drop(),
  };
}

describe.each(backends)('a store observed for metrics ($name)', (backend) => {
  it('reports statements (transactions included) and connection waits, and works as usual', async () => {
    const observer = new RecordingObserver();
    const { store, drop } = await openObserved(backend, observer);
    try {
      // Migrations ran through it already.
      expect(observer.statements.length).toBeGreaterThan(0);
      const before = observer.statements.length;
      const { app, turn } = await seedTurn(store);
      const written = await store.transaction(async (tx) => {
        await tx.turns.update(turn.id, ['in_progress'], { updatedAt: new Date().toISOString() });
        return tx.turns.get(turn.id);
      });
      expect(written?.id).toBe(turn.id);
      expect(await store.apps.get(app.id)).toBeDefined();
      // BEGIN, the update, the read and COMMIT at least, all timed and successful.
      const ran = observer.statements.slice(before);
      expect(ran.length).toBeGreaterThanOrEqual(4);
      expect(ran.every((statement) => !statement.failed && statement.seconds >= 0)).toBe(true);
      expect(observer.handedOver.length).toBe(observer.requested);
      expect(observer.handedOver.every((wait) => wait.acquired && wait.seconds >= 0)).toBe(true);

      const failing = observer.statements.length;
      await expect(
        store.transaction(async (tx) => {
          await tx.turns.get(turn.id);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(observer.statements.length).toBeGreaterThan(failing);
      // A statement the database refuses is reported as failed.
      await expect(store.apps.insert(app)).rejects.toThrow();
      expect(observer.statements.at(-1)?.failed).toBe(true);
    } finally {
      await store.close();
      await drop();
    }
  });
});
