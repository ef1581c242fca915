import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Keys become records with a life: an expiry (set directly, or by a rotation's grace period) and
 * the time of last use. The role model gains `operator` (server-wide) and `reader`; the keys the
 * server itself registered (`BATON_ADMIN_KEY`, or the generated first key) were the only ones ever
 * meant to manage other apps, so they become operators, and every other admin key stays an admin
 * of its own app only.
 */
export function createKeyLifecycleMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
      await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();
      await db.schema.createIndex('api_keys_app_idx').on('api_keys').columns(['app_id', 'created_at']).execute();
      await sql`update api_keys set role = 'operator'
        where role = 'admin' and name in ('BATON_ADMIN_KEY', 'first admin key')`.execute(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await sql`update api_keys set role = 'admin' where role = 'operator'`.execute(db);
      await sql`update api_keys set role = 'member' where role = 'reader'`.execute(db);
      await db.schema.dropIndex('api_keys_app_idx').execute();
      await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
      await db.schema.alterTable('api_keys').dropColumn('expires_at').execute();
    },
  };
}
