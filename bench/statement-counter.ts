import Database from 'better-sqlite3';
import pg from 'pg';

/**
 * Counts the SQL statements this process sends, on either database: every query a `pg` client
 * submits (PostgreSQL: the pool's and the notices' connection, BEGIN and COMMIT included) and
 * every run of a better-sqlite3 statement (SQLite, BEGIN and COMMIT included). A counted figure,
 * not an estimate, for the bench's statements per round trip; the wrappers add one increment per
 * statement.
 *
 * On SQLite it also counts commits: a statement that ends a transaction other than by rolling it
 * back (`COMMIT`, or the `RELEASE` of an outermost savepoint), and a writing statement run outside
 * any transaction (SQLite commits it on its own). PostgreSQL's commits are read from the database
 * (`pg_stat_database.xact_commit`, bench/replicas.ts).
 */
let count = 0;
let commits = 0;
let installed = false;

interface CountedStatement {
  readonly source: string;
  readonly readonly: boolean;
  readonly database: { readonly inTransaction: boolean };
}

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
    statement[method] = function counted(this: CountedStatement, ...args: unknown[]) {
      count += 1;
      const inTransaction = this.database.inTransaction;
      const result = original.apply(this, args);
      if (this.database.inTransaction) return result;
      if (inTransaction ? !/^\s*rollback/i.test(this.source) : !this.readonly) commits += 1;
      return result;
    };
  }
}

export function statementsSoFar(): number {
  return count;
}

/** SQLite commits so far (see above); 0 on PostgreSQL. */
export function commitsSoFar(): number {
  return commits;
}
