import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Real PostgreSQL for tests: each caller gets a database of its own, created on the server at
 * `BATON_TEST_POSTGRES_URL` (default: the machine's local server, trust authentication) and
 * dropped afterwards, so test runs and test files never share rows.
 *
 * A machine without PostgreSQL skips those tests with a printed reason. CI sets
 * `BATON_REQUIRE_POSTGRES=1` (`.ci/run`), and then a missing server fails the run instead.
 */

const ADMIN_URL = process.env.BATON_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let availability: Promise<string | null> | undefined;

/** Null when a server answers; otherwise why not, for the skip message. */
export function postgresUnavailable(): Promise<string | null> {
  availability ??= (async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('select 1');
      return null;
    } catch (error) {
      const reason = `PostgreSQL at ${ADMIN_URL} is not reachable (${error instanceof Error ? error.message : String(error)})`;
      if (process.env.BATON_REQUIRE_POSTGRES === '1')
        throw new Error(`${reason}; BATON_REQUIRE_POSTGRES=1 forbids skipping`, { cause: error });
      console.warn(`skipping PostgreSQL tests: ${reason}`);
      return reason;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return availability;
}

export interface TestDatabase {
  /** The new database's URL. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A new, empty database; `drop()` removes it (ending any connection left open to it). */
export async function createTestDatabase(prefix = 'baton_test'): Promise<TestDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
