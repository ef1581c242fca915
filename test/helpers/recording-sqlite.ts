import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database as Schema } from '../../src/store/kysely/database-schema.ts';

/** A statement as the driver received it: its SQL and parameters. */
export interface ReceivedStatement {
  sql: string;
  parameters: readonly unknown[];
}

/**
 * Kysely on an in-memory SQLite database that records every statement it runs, so a test can see
 * the SQL and parameters sent (and ask SQLite for their plans on `memory`).
 */
export function recordingSqlite(): { db: Kysely<Schema>; memory: Database.Database; received: ReceivedStatement[] } {
  const received: ReceivedStatement[] = [];
  const memory = new Database(':memory:');
  const db = new Kysely<Schema>({
    dialect: new SqliteDialect({
      database: {
        close: () => memory.close(),
        prepare: (text: string) => {
          const statement = memory.prepare(text);
          const record = (parameters: readonly unknown[]) => received.push({ sql: text, parameters });
          return {
            reader: statement.reader,
            all: (parameters: readonly unknown[]) => (record(parameters), statement.all(...parameters)),
            run: (parameters: readonly unknown[]) => (record(parameters), statement.run(...parameters)),
            iterate: (parameters: readonly unknown[]) => statement.iterate(...parameters),
          };
        },
      },
    }),
  });
  return { db, memory, received };
}
