import type { Kysely, Migration } from 'kysely';

/**
 * Finds items by group: a Responses message id is its item group's id, and `item_reference`
 * inputs name items by that id.
 */
export function createItemGroupsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('items_group_idx').on('items').column('group_id').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('items_group_idx').execute();
    },
  };
}
