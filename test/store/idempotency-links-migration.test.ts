import Database from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Dialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import type { Database as Schema } from '../../src/store/kysely/database-schema.ts';
import { createKyselyStore } from '../../src/store/kysely/kysely-store.ts';
import { LocalSignals } from '../../src/store/local-signals.ts';
import type { MigrationDialect } from '../../src/store/migrations/migration-dialect.ts';
import { migrationsFor } from '../../src/store/migrations/migrations.ts';
import { createTestDatabase, postgresUnavailable } from '../helpers/postgres-database.ts';
import { agentRecord, appRecord, at, conversationRecord } from './store-fixtures.ts';

/**
 * Migration 0015 on both dialects, over a database written before it: every stored response that
 * names a conversation gets its link (read in batches, so more keys than one batch), so deleting
 * the conversation deletes the key; an in-progress key from before leases expires; and the
 * migration goes down again.
 */

const BEFORE = '0014-app-tombstones';
/** More than the migration's batch of 500, so the backfill pages. */
const OLD_KEYS = 1_100;

interface Backend {
  name: string;
  flavor: MigrationDialect;
  dialect(): Promise<{ dialect: Dialect; drop(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'sqlite',
    flavor: 'sqlite',
    dialect: async () => ({
      dialect: new SqliteDialect({ database: new Database(':memory:') }),
      drop: async () => {},
    }),
  },
  {
    name: 'pglite',
    flavor: 'postgres',
    dialect: async () => {
      const [{ PGlite }, { PGliteDialect }] = await Promise.all([
        import('@electric-sql/pglite'),
        import('kysely-pglite-dialect'),
      ]);
      return { dialect: new PGliteDialect(new PGlite()), drop: async () => {} };
    },
  },
  ...((await postgresUnavailable()) === null
    ? [
        {
          name: 'postgres',
          flavor: 'postgres' as const,
          dialect: async () => {
            const database = await createTestDatabase('baton_links_migration');
            return {
              dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) }),
              drop: () => database.drop(),
            };
          },
        },
      ]
    : []),
];

function migrator(db: Kysely<unknown>, flavor: MigrationDialect): Migrator {
  const migrations = migrationsFor(flavor);
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

describe.each(backends)('migration 0015-idempotency-links ($name)', (backend) => {
  // PGlite takes seconds to start on a busy machine; nothing here is timed.
  it('links the stored responses of old keys to the conversations they name', { timeout: 120_000 }, async () => {
    const { dialect, drop } = await backend.dialect();
    const db = new Kysely<unknown>({ dialect });
    try {
      expect((await migrator(db, backend.flavor).migrateTo(BEFORE)).error).toBeUndefined();
      const store = createKyselyStore(db as unknown as Kysely<Schema>, new LocalSignals());
      const app = appRecord();
      await store.apps.insert(app);
      const agent = agentRecord(app.id, 'support');
      await store.agents.insert(agent);
      const thread = newId('thread');
      await store.conversations.insert(conversationRecord(agent, { id: thread }));
      const other = newId('thread');

      // What Baton stored before links: responses naming a thread (one of them twice, with another),
      // one naming none, and an in-flight key from before leases (its process died).
      const ids = Array.from({ length: OLD_KEYS }, () => newId('thread'));
      const rows = ids.map((id, index) => ({
        app_id: app.id,
        key: `old-${String(index).padStart(4, '0')}`,
        request_hash: 'hash',
        state: 'done',
        response_status: 200,
        response_body: JSON.stringify({ id, object: 'thread' }),
        created_at: at(index),
      }));
      rows.push(
        {
          ...rows[0]!,
          key: 'created-thread',
          response_body: JSON.stringify({ id: thread, thread_id: thread, forked: other }),
        },
        { ...rows[0]!, key: 'no-thread', response_body: '{"ok":true}', created_at: at(OLD_KEYS + 10) },
      );
      const raw = db as unknown as Kysely<Schema>;
      for (let start = 0; start < rows.length; start += 200)
        await raw
          .insertInto('idempotency_keys')
          .values(rows.slice(start, start + 200).map((row) => ({ ...row, owner: null, lease_expires_at: null })))
          .execute();
      await sql`insert into idempotency_keys (app_id, key, request_hash, state, created_at)
                values (${app.id}, 'abandoned', 'hash', 'in_progress', ${at(1)})`.execute(db);

      expect((await migrator(db, backend.flavor).migrateToLatest()).error).toBeUndefined();

      const links = await raw.selectFrom('idempotency_key_conversations').selectAll().execute();
      expect(links).toHaveLength(OLD_KEYS + 2);
      expect(links).toContainEqual({ app_id: app.id, key: 'old-1099', conversation_id: ids[1099] });
      expect(
        links
          .filter((link) => link.key === 'created-thread')
          .map((link) => link.conversation_id)
          .sort(),
      ).toEqual([thread, other].sort());
      expect(links.some((link) => link.key === 'no-thread' || link.key === 'abandoned')).toBe(false);

      // Deleting the thread deletes the key whose response named it, and its links.
      expect(await store.lifecycle.purgeConversation(app.id, thread)).toMatchObject({
        idempotency_keys: 1,
        idempotency_key_conversations: 2,
      });
      expect(await store.idempotency.get(app.id, 'created-thread')).toBeUndefined();
      expect(await store.idempotency.get(app.id, 'no-thread')).toBeDefined();

      // The key from before leases expires like the others (its lease ended a minute after it began).
      expect(await store.idempotency.deleteExpired(at(2), 10, at(100_000))).toBe(3); // old-0000, old-0001, abandoned
      expect(await store.idempotency.get(app.id, 'abandoned')).toBeUndefined();
      expect(await raw.selectFrom('idempotency_key_conversations').select('key').execute()).toHaveLength(OLD_KEYS - 2);

      // And back down: the table goes, the keys stay.
      expect((await migrator(db, backend.flavor).migrateTo(BEFORE)).error).toBeUndefined();
      const left = await sql<{ count: number | string }>`select count(*) as count from idempotency_keys`.execute(db);
      expect(Number(left.rows[0]?.count)).toBe(OLD_KEYS - 2 + 1);
      await expect(sql`select * from idempotency_key_conversations`.execute(db)).rejects.toThrow();
    } finally {
      await db.destroy();
      await drop();
    }
  });
});
