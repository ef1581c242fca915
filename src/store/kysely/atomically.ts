import type { Kysely } from 'kysely';
import type { Database } from './database-schema.ts';

/**
 * Runs multi-statement repo methods (agent + version row, several items) all-or-nothing.
 * Inside `Store.transaction` the repos are already bound to a transaction, and Kysely cannot
 * nest one, so the work then simply joins the caller's transaction.
 */
export function atomically<T>(db: Kysely<Database>, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
