import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely, Migration } from 'kysely';
import type { MigrationDialect } from './migration-dialect.ts';

/**
 * What the CES-style resource API manages besides agents: app settings and the app's place in
 * `projects/{project}/locations/{location}`, tools and toolsets (one table, `collection` tells
 * them apart, bodies as JSON), encrypted secrets, and CES sessions (a client-chosen id bound to
 * one conversation). `revision` columns are compare-and-set tokens; etags are computed from them.
 * Same conventions as `0001-initial`.
 */
export function createAppResourcesMigration(dialect: MigrationDialect): Migration {
  const sortKey = (col: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col;

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('apps')
        .addColumn('project', 'text', (col) => col.notNull().defaultTo('default'))
        .execute();
      await db.schema
        .alterTable('apps')
        .addColumn('location', 'text', (col) => col.notNull().defaultTo('global'))
        .execute();
      await db.schema
        .alterTable('apps')
        .addColumn('settings', 'text', (col) => col.notNull().defaultTo('{}'))
        .execute();
      await db.schema
        .alterTable('apps')
        .addColumn('revision', 'integer', (col) => col.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable('apps').addColumn('updated_at', 'text').execute();

      await db.schema
        .createTable('app_resources')
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('collection', 'text', (col) => col.notNull())
        .addColumn('id', 'text', (col) => sortKey(col).notNull())
        .addColumn('body', 'text', (col) => col.notNull())
        .addColumn('revision', 'integer', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('app_resources_pk', ['app_id', 'collection', 'id'])
        .addForeignKeyConstraint('app_resources_app_fk', ['app_id'], 'apps', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .execute();

      await db.schema
        .createTable('secrets')
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('id', 'text', (col) => sortKey(col).notNull())
        .addColumn('display_name', 'text')
        .addColumn('ciphertext', 'text', (col) => col.notNull())
        .addColumn('revision', 'integer', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('secrets_pk', ['app_id', 'id'])
        .addForeignKeyConstraint('secrets_app_fk', ['app_id'], 'apps', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .execute();

      await db.schema
        .createTable('ces_sessions')
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('id', 'text', (col) => sortKey(col).notNull())
        .addColumn('conversation_id', 'text', (col) => col.notNull().unique())
        .addColumn('ended', 'integer', (col) => col.notNull())
        .addColumn('variables', 'text', (col) => col.notNull())
        .addColumn('turn_count', 'integer', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('ces_sessions_pk', ['app_id', 'id'])
        .addForeignKeyConstraint('ces_sessions_conversation_fk', ['conversation_id'], 'conversations', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('ces_sessions').execute();
      await db.schema.dropTable('secrets').execute();
      await db.schema.dropTable('app_resources').execute();
      for (const column of ['updated_at', 'revision', 'settings', 'location', 'project']) {
        await db.schema.alterTable('apps').dropColumn(column).execute();
      }
    },
  };
}
