import Database from 'better-sqlite3';
import pg from 'pg';

/**
 * Counts the SQL statements this process sends, on either database: every query a `pg` client
 * submits (PostgreSQL: the pool's and the notices' connection, BEGIN and COMMIT included) and
 * every run of a better-sqlite3 statement (SQLite, BEGIN and COMMIT included). A counted figure,
 * not an estimate, for the bench's statements per round trip; the wrappers add one increment per
 * statement.
 */
let count = 0;
let installed = false;

export function countStatements(): void {
  if (installed) return;
  installed = true;
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = client.query;
  client.query = function counted(this: unknown, ...args: unknown[]) {
    count += 1;
    return query.apply(this, args);
  };
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate'] as const) {
    const original = statement[method]!;
    statement[method] = function counted(this: unknown, ...args: unknown[]) {
      count += 1;
      return original.apply(this, args);
    };
  }
}

export function statementsSoFar(): number {
  return count;
}
