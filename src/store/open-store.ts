import { withPreparedStatements } from './kysely/prepared-postgres-pool.ts';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Dialect } from 'kysely';
import type { Database as Schema } from './kysely/database-schema.ts';
import { createKyselyStore } from './kysely/kysely-store.ts';
import { withStatementCache } from './kysely/cached-statements.ts';
import { SqliteCheckpointer } from './sqlite-checkpointer.ts';
import { ImmediateSqliteDialect } from './kysely/sqlite-immediate-dialect.ts';
import type { MigrationDialect } from './migrations/migration-dialect.ts';
import { migrateToLatest } from './migrations/migrate-to-latest.ts';
import type { Store } from './store.ts';
import { LocalSignals } from './local-signals.ts';
import { PostgresSignals } from './postgres-signals.ts';
import type { Signals } from './signals.ts';
import type { DatabaseObserver } from './database-observer.ts';
import { observedDialect } from './kysely/observed-dialect.ts';

export type StoreOptions =
  | {
      kind: 'sqlite';
      /** ':memory:' gives a private in-memory database (tests). */
      filename: string;
      /**
       * Who copies the WAL back into the file: a thread of its own (the default, see
       * `SqliteCheckpointer`), or the writer after its commits, as SQLite does by default.
       */
      checkpoints?: 'thread' | 'writer';
    }
  /** In-process Postgres; in memory when `dataDir` is absent. */
  | { kind: 'pglite'; dataDir?: string }
  | {
      kind: 'postgres';
      connectionString: string;
      /** Connections this process keeps (default 10). */
      poolSize?: number;
      /** PostgreSQL cancels a statement that runs longer (default 30 s). */
      statementTimeoutMs?: number;
      /** Named prepared statements (default on; see `withPreparedStatements`). */
      preparedStatements?: boolean;
    };

/**
 * Opens the database, applies pending migrations and returns a ready `Store`. With an `observer`
 * (metrics on), every statement and every wait for a connection is timed and reported to it.
 */
export async function openStore(options: StoreOptions, observer?: DatabaseObserver): Promise<Store> {
  const { dialect, flavor, checkpointer } = await createDialect(options);
  // better-sqlite3 runs a statement to its end inside the call: it is timed around the call.
  const synchronous = options.kind === 'sqlite';
  const db = new Kysely<Schema>({ dialect: observer ? observedDialect(dialect, observer, { synchronous }) : dialect });
  try {
    // Migrations see the database untyped: they describe past schemas, not today's `Schema`.
    await migrateToLatest(db as unknown as Kysely<unknown>, flavor);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  let signals: Signals;
  try {
    signals = await createSignals(options);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const store = createKyselyStore(db, signals, flavor);
  if (!checkpointer) return store;
  return {
    ...store,
    async close() {
      await store.close();
      // Its thread gone too: a process may exit once the store is closed.
      await checkpointer.stop();
    },
  };
}

async function createSignals(options: StoreOptions): Promise<Signals> {
  if (options.kind !== 'postgres') return new LocalSignals();
  const signals = new PostgresSignals(options.connectionString);
  await signals.start();
  return signals;
}

async function createDialect(
  options: StoreOptions,
): Promise<{ dialect: Dialect; flavor: MigrationDialect; checkpointer?: SqliteCheckpointer | null }> {
  switch (options.kind) {
    case 'sqlite': {
      const database = openSqlite(options.filename);
      // A database in memory has no WAL to copy back.
      const onThread = options.checkpoints !== 'writer' && !isInMemory(options.filename);
      const checkpointer = onThread ? new SqliteCheckpointer(database) : null;
      return {
        dialect: new ImmediateSqliteDialect({
          // The thread stops with the connection, whatever closes it (a failed migration too);
          // the store's `close()` then waits for it.
          database: withStatementCache(database, () => void checkpointer?.stop()),
        }),
        flavor: 'sqlite',
        checkpointer,
      };
    }
    case 'pglite': {
      // Loaded on demand: PGlite is a development dependency (tests, local experiments).
      const [{ PGlite }, { PGliteDialect }] = await Promise.all([
        import('@electric-sql/pglite'),
        import('kysely-pglite-dialect'),
      ]);
      const pglite = options.dataDir === undefined ? new PGlite() : new PGlite(options.dataDir);
      return { dialect: new PGliteDialect(pglite), flavor: 'postgres' };
    }
    case 'postgres': {
      const pool = new pg.Pool({
        connectionString: options.connectionString,
        max: options.poolSize ?? 10,
        statement_timeout: options.statementTimeoutMs ?? 30_000,
        // A replica that cannot reach the database fails its request instead of hanging on it.
        connectionTimeoutMillis: 10_000,
        application_name: 'baton',
      });
      // An idle client's error (the server restarted, a network cut) would crash the process
      // otherwise; the pool drops that client and the next query opens a new one.
      pool.on('error', () => {});
      const prepared = options.preparedStatements !== false;
      return {
        dialect: new PostgresDialect({ pool: prepared ? withPreparedStatements(pool) : pool }),
        flavor: 'postgres',
      };
    }
  }
}

function isInMemory(filename: string): boolean {
  return filename === ':memory:' || filename === '' || filename.startsWith('file::memory:');
}

const BUSY_TIMEOUT_MS = 5_000;

/**
 * Runs `work` again while SQLite answers SQLITE_BUSY, up to the busy timeout. Another process
 * closing its last connection checkpoints the WAL and removes it under an exclusive lock, and
 * `journal_mode` then fails at once instead of waiting on the busy handler.
 */
function whenUnlocked<T>(work: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      return work();
    } catch (error) {
      const busy = error instanceof Database.SqliteError && error.code.startsWith('SQLITE_BUSY');
      if (!busy || Date.now() >= deadline) throw error;
      // Opening is synchronous: wait a few ms in place.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

function openSqlite(filename: string): Database.Database {
  if (!isInMemory(filename)) mkdirSync(dirname(resolve(filename)), { recursive: true });
  const database = new Database(filename);
  try {
    // busy_timeout first: writers from several processes wait for the lock instead of failing at
    // once, and switching a fresh file to WAL takes that lock too (several starters at once).
    // WAL then lets readers in other processes proceed while one writes.
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    whenUnlocked(() => database.pragma('journal_mode = WAL'));
    database.pragma('foreign_keys = ON');
    // Safe with WAL (a crash loses at most the last commits, never consistency) and much faster than FULL.
    database.pragma('synchronous = NORMAL');
  } catch (error) {
    database.close();
    throw error;
  }
  return database;
}
