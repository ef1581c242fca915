import type Database from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const MAX_STATEMENTS = 500;

/**
 * better-sqlite3 with prepared statements kept per SQL text. Kysely prepares every query anew,
 * and preparing cost as much as running the small indexed queries Baton makes. Kysely serialises
 * all use of the one SQLite connection, so a cached statement is never run twice at once.
 * `onClose` runs once the connection is closed.
 */
export function withStatementCache(database: Database.Database, onClose: () => void = () => {}): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      statements.clear();
      database.close();
      onClose();
    },
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (!statement) {
        statement = database.prepare(sql) as unknown as SqliteStatement;
        if (statements.size >= MAX_STATEMENTS) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
