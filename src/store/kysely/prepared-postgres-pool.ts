import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/** Distinct statements named per process; past it, queries go unnamed (parsed each time). */
const MAX_NAMED = 1_000;

/**
 * A pool whose queries run as named prepared statements: PostgreSQL parses and plans each SQL
 * text once per connection instead of on every execution, which is most of the server's work for
 * the small indexed statements Baton makes. The name is a hash of the text, so equal text shares
 * one statement on a connection. Off (`database.prepared_statements: false`) behind a pooler that
 * cannot carry prepared statements across transactions (PgBouncer in transaction mode before
 * 1.21).
 */
export function withPreparedStatements(pool: pg.Pool): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED) {
      name = `baton_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      const query = (text: unknown, values?: readonly unknown[]): unknown => {
        // Cursors and other query objects pass through as they are.
        if (typeof text !== 'string') return client.query(text as pg.Submittable);
        const name = nameOf(text);
        const params = values === undefined ? undefined : [...values];
        return client.query(name === undefined ? { text, values: params } : { name, text, values: params });
      };
      return {
        query: query as PostgresPoolClient['query'],
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}
