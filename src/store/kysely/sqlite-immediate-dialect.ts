import { CompiledQuery, SqliteAdapter, SqliteDialect, SqliteDriver } from 'kysely';
import type { DatabaseConnection, DialectAdapter, Driver, SqliteDialectConfig } from 'kysely';

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

/**
 * Kysely's SQLite adapter says DDL is not transactional, so the Migrator would run each
 * migration statement by statement: a crash halfway leaves tables behind without the
 * migration being recorded, and two processes starting on a fresh file race to create them.
 * SQLite's DDL *is* transactional; declaring it makes the Migrator read its state and apply
 * migrations inside one `BEGIN IMMEDIATE` transaction, which is both atomic and the
 * cross-process migration lock.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
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

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
