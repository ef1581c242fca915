import type { Kysely, Migration } from 'kysely';

/**
 * A running turn is held by a lease: `lease_token` names the run that holds it (each start,
 * resume and takeover mints a new one), and every write of that run is guarded on it, so a
 * process that lost the turn cannot commit (fencing). `takeovers` counts how often another
 * process continued the turn after its holder went silent, so a turn that keeps killing its
 * process is failed rather than passed around forever. Older rows have no token: the first
 * takeover gives them one. `request_key` is the Idempotency-Key of the request that started the
 * turn: a retry of that request, after its replica died, rejoins the turn instead of starting
 * another with the same message.
 */
export function createTurnLeasesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('turns').addColumn('lease_token', 'text').execute();
      await db.schema.alterTable('turns').addColumn('request_key', 'text').execute();
      await db.schema
        .alterTable('turns')
        .addColumn('takeovers', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('turns').dropColumn('takeovers').execute();
      await db.schema.alterTable('turns').dropColumn('request_key').execute();
      await db.schema.alterTable('turns').dropColumn('lease_token').execute();
    },
  };
}
