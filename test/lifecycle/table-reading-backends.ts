import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createTestDatabase, postgresUnavailable } from '../helpers/postgres-database.ts';
import { startTestBaton, type ManualClock, type TestBaton } from '../helpers/test-baton.ts';

/** Every table of the database, as its rows: listed from the database itself, so a new table is covered. */
export type Tables = Record<string, Record<string, unknown>[]>;

export interface TableReadingBackend {
  name: string;
  start(clock?: ManualClock): Promise<{ server: TestBaton; tables: () => Promise<Tables>; close(): Promise<void> }>;
}

/** The audit trail keeps the ids of what it records being deleted; it holds no conversation data. */
const KEEPS_IDS = new Set(['audit_events']);

/**
 * A real Baton on SQLite (a file) and, where the machine has it, on PostgreSQL, each with a reader
 * of every table beside it: what the data lifecycle tests check "no row remains" with.
 */
export async function tableReadingBackends(prefix: string): Promise<TableReadingBackend[]> {
  const sqlite: TableReadingBackend = {
    name: 'sqlite',
    async start(clock) {
      const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
      const filename = join(dir, 'baton.db');
      const server = await startTestBaton({}, { store: { kind: 'sqlite', filename }, ...(clock ? { clock } : {}) });
      const reader = new Database(filename, { readonly: true });
      return {
        server,
        async tables() {
          const names = reader
            .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
            .all() as { name: string }[];
          return Object.fromEntries(
            names.map(({ name }) => [
              name,
              reader.prepare(`select * from "${name}"`).all() as Record<string, unknown>[],
            ]),
          );
        },
        async close() {
          reader.close();
          await server.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
  const postgres: TableReadingBackend = {
    name: 'postgres',
    async start(clock) {
      const database = await createTestDatabase(prefix.replaceAll('-', '_'));
      // A PostgreSQL store needs the secrets key every replica shares.
      process.env.BATON_SECRETS_KEY ??= 'ab'.repeat(32);
      const server = await startTestBaton(
        {},
        {
          store: { kind: 'postgres', connectionString: database.url, preparedStatements: false },
          ...(clock ? { clock } : {}),
        },
      );
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      return {
        server,
        async tables() {
          const names = await client.query<{ tablename: string }>(
            'select tablename from pg_tables where schemaname = current_schema()',
          );
          const all: Tables = {};
          for (const { tablename } of names.rows)
            all[tablename] = (await client.query(`select * from "${tablename}"`)).rows;
          return all;
        },
        async close() {
          await client.end();
          await server.close();
          await database.drop();
        },
      };
    },
  };
  return (await postgresUnavailable()) === null ? [sqlite, postgres] : [sqlite];
}

/** Every row (outside the audit trail) that mentions one of `ids`, as `table: row`. */
export function rowsMentioning(tables: Tables, ids: readonly string[]): string[] {
  const found: string[] = [];
  for (const [table, rows] of Object.entries(tables)) {
    if (KEEPS_IDS.has(table)) continue;
    for (const row of rows) {
      const text = JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
      if (ids.some((id) => text.includes(id))) found.push(`${table}: ${text.slice(0, 200)}`);
    }
  }
  return found;
}
