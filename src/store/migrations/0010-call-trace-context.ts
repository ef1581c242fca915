import type { Kysely, Migration } from 'kysely';

/**
 * `trace_context`: the W3C `traceparent` of the run that paused on a call, written with the call
 * when tracing is on (null otherwise). Whoever resumes the turn, in this process or another one
 * after a restart, reads it back to link its run to the one that paused and to record how long
 * the call waited, in the trace that made it.
 */
export function createCallTraceContextMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('ledger_entries').addColumn('trace_context', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('ledger_entries').dropColumn('trace_context').execute();
    },
  };
}
