import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import type { DatabaseObserver } from '../database-observer.ts';

/**
 * A dialect whose driver reports to `observer` how long each statement took and how long each
 * connection was waited for, whatever the database (SQLite, PostgreSQL, PGlite). Wrapping the
 * driver, rather than using Kysely's `log` option, also sees the wait for a connection: a pool's,
 * or SQLite's one connection, which a transaction holds while others queue.
 *
 * This runs some 17 times per round trip, so it adds no step to the caller's chain of promises:
 * the timing is a reaction of its own on the statement's promise (registered first, so it runs
 * before the caller goes on), and the promise the caller gets is the driver's own. A driver whose
 * statements run to the end before `executeQuery` returns (better-sqlite3: `synchronous`) is
 * timed around the call itself, with no reaction at all.
 */
export function observedDialect(
  dialect: Dialect,
  observer: DatabaseObserver,
  options: { synchronous: boolean },
): Dialect {
  return {
    createDriver: () => new ObservedDriver(dialect.createDriver(), observer, options.synchronous),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

type SavepointMethod = (
  connection: DatabaseConnection,
  savepointName: string,
  compileQuery: QueryCompiler['compileQuery'],
) => Promise<void>;

class ObservedDriver implements Driver {
  // Present only when the wrapped driver has them: Kysely supports savepoints by their presence.
  readonly savepoint?: SavepointMethod;
  readonly rollbackToSavepoint?: SavepointMethod;
  readonly releaseSavepoint?: SavepointMethod;
  /** Connections whose statements are timed already (a pool hands the same ones out again). */
  private readonly observed = new WeakSet<DatabaseConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly observer: DatabaseObserver,
    private readonly synchronous: boolean,
  ) {
    this.savepoint = inner.savepoint?.bind(inner);
    this.rollbackToSavepoint = inner.rollbackToSavepoint?.bind(inner);
    this.releaseSavepoint = inner.releaseSavepoint?.bind(inner);
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    const observer = this.observer;
    observer.connectionRequested();
    const started = performance.now();
    const acquiring = this.inner.acquireConnection();
    void acquiring.then(
      (connection) => {
        observer.connectionHandedOver((performance.now() - started) / 1000, true);
        this.observe(connection);
      },
      () => observer.connectionHandedOver((performance.now() - started) / 1000, false),
    );
    return acquiring;
  }

  /**
   * Times every statement of `connection`, in place (as Kysely's own query logging does): the
   * driver's transaction methods run BEGIN and COMMIT through it too, so they are timed alike.
   */
  private observe(connection: DatabaseConnection): void {
    if (this.observed.has(connection)) return;
    this.observed.add(connection);
    const observer = this.observer;
    const execute = connection.executeQuery.bind(connection);
    if (this.synchronous) {
      connection.executeQuery = <R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> => {
        const started = performance.now();
        try {
          const done = execute<R>(compiledQuery);
          observer.statementRan((performance.now() - started) / 1000, false);
          return done;
        } catch (error) {
          observer.statementRan((performance.now() - started) / 1000, true);
          throw error;
        }
      };
      return;
    }
    connection.executeQuery = <R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> => {
      const started = performance.now();
      const report = (failed: boolean) => observer.statementRan((performance.now() - started) / 1000, failed);
      let running: Promise<QueryResult<R>>;
      try {
        running = execute<R>(compiledQuery);
      } catch (error) {
        report(true);
        throw error;
      }
      void running.then(
        () => report(false),
        () => report(true),
      );
      return running;
    };
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
