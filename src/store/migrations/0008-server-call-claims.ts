import type { Kysely, Migration } from 'kysely';

/**
 * A server call is claimed, in a commit of its own, before it runs; its step commits later with
 * the result. A claim left behind names a call whose process died while it ran: its outcome is
 * unknown, and recovery tells the conversation so instead of forgetting that it ran.
 */
export function createServerCallClaimsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('server_call_claims')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('turn_id', 'text', (col) => col.notNull())
        .addColumn('entry', 'text', (col) => col.notNull())
        .addColumn('claimed_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('server_call_claims_turn_idx').on('server_call_claims').column('turn_id').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('server_call_claims').execute();
    },
  };
}
