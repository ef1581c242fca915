import type { PostgresPool } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withPreparedStatements } from '../../src/store/kysely/prepared-postgres-pool.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createTestDatabase, postgresUnavailable, type TestDatabase } from '../helpers/postgres-database.ts';
import { seedTurn } from './store-fixtures.ts';

const unavailable = await postgresUnavailable();

/**
 * PostgreSQL parses and plans each statement once per connection: Baton's queries run as named
 * prepared statements, unless `database.prepared_statements: false` (PgBouncer in transaction
 * mode). The store conformance suite runs with them on; this checks they are really prepared.
 */
describe.skipIf(unavailable !== null)('named prepared statements on PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('baton_prepared');
  });
  afterAll(async () => database?.drop());

  async function preparedOnOneConnection(prepare: boolean): Promise<string[]> {
    const raw = new pg.Pool({ connectionString: database.url, max: 1 });
    // Both as Kysely's driver sees a pool: `query(sql, parameters)` on a connected client.
    const pool: PostgresPool = prepare ? withPreparedStatements(raw) : (raw as unknown as PostgresPool);
    try {
      const client = await pool.connect();
      try {
        for (const value of [1, 2, 3]) {
          const result = await client.query<{ doubled: number }>('select $1::int * 2 as doubled', [value]);
          expect(result.rows).toEqual([{ doubled: value * 2 }]);
        }
        const listed = await client.query<{ name: string }>(
          "select name from pg_prepared_statements where statement = 'select $1::int * 2 as doubled'",
          [],
        );
        return listed.rows.map((row) => row.name);
      } finally {
        client.release();
      }
    } finally {
      await raw.end();
    }
  }

  it('prepares each SQL text once per connection and reuses it', async () => {
    const names = await preparedOnOneConnection(true);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^baton_[0-9a-f]{24}$/);
  });

  it('prepares nothing when turned off', async () => {
    expect(await preparedOnOneConnection(false)).toEqual([]);
  });

  it('runs the store either way', async () => {
    for (const preparedStatements of [true, false]) {
      const store = await openStore({
        kind: 'postgres',
        connectionString: database.url,
        poolSize: 2,
        preparedStatements,
      });
      try {
        const { turn } = await seedTurn(store);
        expect((await store.turns.get(turn.id))?.id).toBe(turn.id);
      } finally {
        await store.close();
      }
    }
  });
});
