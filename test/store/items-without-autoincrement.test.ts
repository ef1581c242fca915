import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type Dialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database as Schema } from '../../src/store/kysely/database-schema.ts';
import { createKyselyStore } from '../../src/store/kysely/kysely-store.ts';
import { ImmediateSqliteDialect } from '../../src/store/kysely/sqlite-immediate-dialect.ts';
import { LocalSignals } from '../../src/store/local-signals.ts';
import { migrationsFor } from '../../src/store/migrations/migrations.ts';
import { openStore } from '../../src/store/open-store.ts';
import { lastCommitPages } from '../helpers/wal-commit-pages.ts';
import { addTurn, at, ledgerEntry, responseRecord, seedTurn, turnRecord, userMessage } from './store-fixtures.ts';

/**
 * Migration 0017 on SQLite: `items` without AUTOINCREMENT, so that a commit appending items no
 * longer writes `sqlite_sequence` (issue 22). Checked: the rows, indexes and references of a
 * database written before it are all there after it (run as the store runs migrations, in one
 * transaction, and statement by statement as a plain dialect does), new items number after the
 * old, it goes down again, and the commit that pauses a turn writes no page of `sqlite_sequence`.
 */

const BEFORE = '0016-partial-ledger-indexes';
const NAME = '0017-items-without-autoincrement';

function migrator(db: Kysely<unknown>): Migrator {
  const migrations = migrationsFor('sqlite');
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

const dialects: { name: string; make: (memory: Database.Database) => Dialect }[] = [
  { name: "the store's dialect (one transaction)", make: (memory) => new ImmediateSqliteDialect({ database: memory }) },
  { name: 'a plain dialect (statement by statement)', make: (memory) => new SqliteDialect({ database: memory }) },
];

describe.each(dialects)(`migration ${NAME}, $name`, ({ make }) => {
  it('keeps every row, index and reference of items, numbers new items after them, and goes down again', async () => {
    const memory = new Database(':memory:');
    const db = new Kysely<unknown>({ dialect: make(memory) });
    try {
      expect((await migrator(db).migrateTo(BEFORE)).error).toBeUndefined();
      const store = createKyselyStore(db as unknown as Kysely<Schema>, new LocalSignals());
      const { agent, conversation, turn } = await seedTurn(store);
      const second = await addTurn(store, conversation, { createdAt: at(5) });
      await store.items.append([userMessage(turn, 'first'), userMessage(second, 'second')]);
      await store.ledger.insert([ledgerEntry(turn, agent.name)]);
      await store.responses.insert(responseRecord(second));

      const statements = () =>
        (
          memory.prepare(`select type, name, sql from sqlite_master where tbl_name = 'items'`).all() as {
            type: string;
            name: string;
            sql: string | null;
          }[]
        ).sort((a, b) => a.name.localeCompare(b.name));
      const items = () => memory.prepare('select * from items order by seq').all() as { seq: number }[];
      const before = statements();
      const itemsBefore = items();
      expect(before.find((entry) => entry.type === 'table')?.sql).toMatch(/autoincrement/i);

      expect((await migrator(db).migrateToLatest()).error).toBeUndefined();
      const after = statements();
      expect(after.find((entry) => entry.type === 'table')?.sql).not.toMatch(/autoincrement/i);
      // The same indexes with the same statements, and the same rows.
      const indexes = (entries: typeof before) => entries.filter((entry) => entry.type === 'index');
      expect(indexes(after)).toEqual(indexes(before));
      expect(items()).toEqual(itemsBefore);
      expect(memory.pragma('foreign_key_check')).toEqual([]);
      expect(memory.pragma('integrity_check', { simple: true })).toBe('ok');

      // References are still enforced, and new items number after the old.
      const orphan = turnRecord(conversation);
      await expect(store.items.append([userMessage(orphan, 'no such turn')])).rejects.toThrow(/FOREIGN KEY/);
      const [appended] = await store.items.append([userMessage(second, 'third')]);
      expect(appended!.seq).toBeGreaterThan(Math.max(...itemsBefore.map((item) => item.seq)));

      // Run again (by a process that started with this one): nothing changes.
      await sql`delete from kysely_migration where name = ${NAME}`.execute(db);
      expect((await migrator(db).migrateToLatest()).error).toBeUndefined();
      expect(statements()).toEqual(after);

      expect((await migrator(db).migrateTo(BEFORE)).error).toBeUndefined();
      expect(statements()).toEqual(before);
      expect(memory.pragma('foreign_key_check')).toEqual([]);
    } finally {
      await db.destroy();
    }
  });
});

describe(`migration ${NAME} over items whose turn is gone`, () => {
  it('refuses, saying how many rows, what they refer to and what to do, and changes nothing', async () => {
    const memory = new Database(':memory:');
    const db = new Kysely<unknown>({ dialect: new ImmediateSqliteDialect({ database: memory }) });
    try {
      expect((await migrator(db).migrateTo(BEFORE)).error).toBeUndefined();
      const store = createKyselyStore(db as unknown as Kysely<Schema>, new LocalSignals());
      const { conversation, turn } = await seedTurn(store);
      await store.items.append([userMessage(turn, 'kept')]);
      // Written with foreign keys off, as a hand-made copy of a database could be.
      memory.pragma('foreign_keys = OFF');
      await store.items.append([userMessage(turnRecord(conversation), 'orphan')]);
      memory.pragma('foreign_keys = ON');
      const table = () => memory.prepare(`select sql from sqlite_master where name = 'items'`).pluck().get();
      const before = table();

      const { error } = await migrator(db).migrateToLatest();
      expect(String(error)).toMatch(
        /1 rows of items refer to turns rows that do not exist.*PRAGMA foreign_key_check\(items\).*start Baton again/,
      );
      expect(table()).toBe(before);
      expect(memory.prepare('select count(*) from items').pluck().get()).toBe(2);
    } finally {
      await db.destroy();
    }
  });
});

describe(`the commit that pauses a turn (migration ${NAME})`, () => {
  const directory = mkdtempSync(join(tmpdir(), 'baton-items-seq-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('writes no page of sqlite_sequence', async () => {
    const filename = join(directory, 'baton.db');
    // The writer checkpoints (after 1,000 pages): the WAL keeps this test's commits.
    const store = await openStore({ kind: 'sqlite', filename, checkpoints: 'writer' });
    try {
      const { agent, conversation } = await seedTurn(store);
      const turn = turnRecord(conversation, { status: 'requires_action' });
      await store.transaction(async (tx) => {
        await tx.turns.insert(turn);
        await tx.items.append([userMessage(turn, 'refund please'), userMessage(turn, 'the call')]);
        await tx.ledger.insert([ledgerEntry(turn, agent.name)]);
      });
      const pages = lastCommitPages(filename);
      expect(pages).toEqual(expect.arrayContaining(['turns', 'items', 'items_conversation_seq_idx', 'ledger_entries']));
      expect(pages).not.toContain('sqlite_sequence');
    } finally {
      await store.close();
    }
  });
});
