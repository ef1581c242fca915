import { CompiledQuery, SqliteDialect, SqliteDriver } from 'kysely';
import type { DatabaseConnection, Driver, SqliteDialectConfig } from 'kysely';

/**
 * Kysely's SQLite driver opens transactions with a plain (deferred) `BEGIN`: the write lock
 * is only requested at the first write. In WAL mode, a transaction that has already read
 * and then finds another process committed in between fails at once with SQLITE_BUSY
 * (busy_timeout cannot help, its snapshot is stale). The engine's transactions read then
 * write, so they start with `BEGIN IMMEDIATE` instead: the write lock is taken up front,
 * waited for under busy_timeout, and write transactions from several processes serialise.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = { ...config };
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}
