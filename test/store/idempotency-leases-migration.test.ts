import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type Dialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database as Schema } from '../../src/store/kysely/database-schema.ts';
import { createKyselyStore } from '../../src/store/kysely/kysely-store.ts';
import { LocalSignals } from '../../src/store/local-signals.ts';
import type { MigrationDialect } from '../../src/store/migrations/migration-dialect.ts';
import { migrationsFor } from '../../src/store/migrations/migrations.ts';
import { at, uid } from './store-fixtures.ts';

/**
 * Migration 0007 on both dialects, over a database written before it: keys in progress then
 * (whose process is long gone) are taken over by a retry once a minute passed since they were
 * made, stored responses still replay, and the migration goes down again.
 */

const BEFORE = '0005-console-indexes';

interface Backend {
  name: string;
  flavor: MigrationDialect;
  dialect(): Promise<Dialect>;
}

const backends: Backend[] = [
  {
    name: 'sqlite',
    flavor: 'sqlite',
    dialect: async () => new SqliteDialect({ database: new Database(':memory:') }),
  },
  {
    name: 'pglite',
    flavor: 'postgres',
    dialect: async () => {
      const [{ PGlite }, { PGliteDialect }] = await Promise.all([
        import('@electric-sql/pglite'),
        import('kysely-pglite-dialect'),
      ]);
      return new PGliteDialect(new PGlite());
    },
  },
];

function migrator(db: Kysely<unknown>, flavor: MigrationDialect): Migrator {
  const migrations = migrationsFor(flavor);
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

describe.each(backends)('migration 0007-idempotency-leases ($name)', (backend) => {
  // PGlite takes seconds to start on a busy machine; nothing here is timed.
  it(
    'adds owner and lease to old rows: an abandoned key is taken over, a stored response still replays',
    { timeout: 120_000 },
    async () => {
      const db = new Kysely<unknown>({ dialect: await backend.dialect() });
      const appId = uid('app');
      try {
        expect((await migrator(db, backend.flavor).migrateTo(BEFORE)).error).toBeUndefined();
        // What Baton wrote before leases: an in-flight key (its process then died) and a finished one.
        await sql`insert into idempotency_keys (app_id, key, request_hash, state, created_at)
                values (${appId}, 'abandoned', 'hash', 'in_progress', ${at(1)})`.execute(db);
        await sql`insert into idempotency_keys (app_id, key, request_hash, state, response_status, response_body, created_at)
                values (${appId}, 'finished', 'hash', 'done', 201, '{"ok":true}', ${at(1)})`.execute(db);
        expect((await migrator(db, backend.flavor).migrateToLatest()).error).toBeUndefined();

        const store = createKyselyStore(db as unknown as Kysely<Schema>, new LocalSignals());
        expect(await store.idempotency.get(appId, 'abandoned')).toMatchObject({ owner: null, leaseExpiresAt: null });
        const lease = (start: number) => ({ owner: 'new-process', expiresAt: at(start + 30) });
        // Held for a minute from its creation, as if its process had leased it then...
        expect((await store.idempotency.reserve(appId, 'abandoned', 'hash', at(60), lease(60))).reserved).toBe(false);
        // ...another body is never let in...
        expect((await store.idempotency.reserve(appId, 'abandoned', 'other', at(62), lease(62))).reserved).toBe(false);
        // ...and after that minute the same request takes it over.
        expect(await store.idempotency.reserve(appId, 'abandoned', 'hash', at(62), lease(62))).toEqual({
          reserved: true,
          takenOver: true,
        });
        expect(await store.idempotency.reserve(appId, 'finished', 'hash', at(62), lease(62))).toMatchObject({
          reserved: false,
          existing: { state: 'done', responseStatus: 201, responseBody: '{"ok":true}' },
        });

        // And back down: the columns go, the rows stay.
        expect((await migrator(db, backend.flavor).migrateTo(BEFORE)).error).toBeUndefined();
        const rows = await sql<Record<string, unknown>>`select * from idempotency_keys where app_id = ${appId}`.execute(
          db,
        );
        expect(rows.rows).toHaveLength(2);
        expect(Object.keys(rows.rows[0] ?? {})).not.toContain('lease_expires_at');
        expect(Object.keys(rows.rows[0] ?? {})).not.toContain('owner');
      } finally {
        await db.destroy();
      }
    },
  );
});
