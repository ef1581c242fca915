import { sql, type Kysely, type Migration } from 'kysely';
import type { MigrationDialect } from './migration-dialect.ts';

/**
 * `items` without AUTOINCREMENT on SQLite (issue 22). AUTOINCREMENT keeps the last `seq` in
 * `sqlite_sequence`, a page of its own that every commit appending items wrote to the write-ahead
 * log: two of a round trip's pages, each a few system calls (its frame's writes, its copy into
 * the database). Without it a new row takes the largest `seq` plus one, which differs only once
 * the newest rows are deleted: a `seq` can then come back, always above every stored row's, so
 * each conversation's items still number upwards. PostgreSQL numbers by a sequence and keeps it.
 *
 * SQLite cannot drop AUTOINCREMENT in place: the table is made again from its own statement (so
 * every column and constraint stays), filled, and given its indexes back, inside the migrations'
 * transaction. Foreign keys stay on, as that transaction cannot change them: the rows wait in a
 * table of their own while `items` is dropped and made again under its own name (renaming a table
 * would rename the references to it). Nothing refers to `items`; its own references are checked
 * again as its rows go back. A table already without AUTOINCREMENT is left as it is, so a process
 * that ran the migration at the same moment as another changes nothing.
 */
export function createItemsWithoutAutoincrementMigration(dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      const create = await tableStatement(db, 'items');
      if (!create || !/\bautoincrement\b/i.test(create)) return;
      await refuseOrphans(db, 'items');
      await rebuildTable(db, 'items', create.replace(/\s+autoincrement\b/i, ''));
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      const create = await tableStatement(db, 'items');
      if (create && !/\bautoincrement\b/i.test(create))
        await rebuildTable(db, 'items', create.replace(/("seq" integer primary key)/i, '$1 autoincrement'));
    },
  };
}

/**
 * The rows go back through their references, which fail the migration's commit if one is broken;
 * a database written with foreign keys off may have such rows. Said first, with what to do.
 */
async function refuseOrphans(db: Kysely<unknown>, table: string): Promise<void> {
  const { rows } = await sql<{ parent: string }>`select parent from pragma_foreign_key_check(${table})`.execute(db);
  if (rows.length === 0) return;
  const parents = [...new Set(rows.map((row) => row.parent))].join(' and ');
  throw new Error(
    `${rows.length} rows of ${table} refer to ${parents} rows that do not exist, so ${table} cannot be rebuilt. ` +
      `List them with \`PRAGMA foreign_key_check(${table})\` in sqlite3, delete them (or restore their ` +
      `parents), and start Baton again.`,
  );
}

/** Makes `table` again by `create`, with its rows and its indexes. */
async function rebuildTable(db: Kysely<unknown>, table: string, create: string): Promise<void> {
  const { rows: indexes } = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db);
  const aside = `${table}_aside`;
  // A savepoint: within the migrations' transaction it nests; run alone (a plain dialect), it is
  // the transaction whose end checks the deferred references.
  await sql`savepoint rebuild`.execute(db);
  try {
    await sql`create table ${sql.table(aside)} as select * from ${sql.table(table)}`.execute(db);
    await sql`drop table ${sql.table(table)}`.execute(db);
    await sql.raw(create).execute(db);
    await sql`insert into ${sql.table(table)} select * from ${sql.table(aside)}`.execute(db);
    await sql`drop table ${sql.table(aside)}`.execute(db);
    for (const index of indexes) await sql.raw(index.sql).execute(db);
    await sql`release rebuild`.execute(db);
  } catch (error) {
    await sql`rollback to rebuild`.execute(db);
    await sql`release rebuild`.execute(db);
    throw error;
  }
}

async function tableStatement(db: Kysely<unknown>, name: string): Promise<string | undefined> {
  const { rows } = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'table' and name = ${name}`.execute(db);
  return rows[0]?.sql;
}
