import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database as Schema } from '../../src/store/kysely/database-schema.ts';
import { GroupCommit } from '../../src/store/kysely/group-commit.ts';
import { ImmediateSqliteDialect } from '../../src/store/kysely/sqlite-immediate-dialect.ts';

/**
 * The SQLite store's group commit (src/store/kysely/group-commit.ts) on a file database, with every
 * statement the connection runs recorded (BEGIN, SAVEPOINT and COMMIT included) and a second
 * connection to see what is committed.
 */
describe('group commit', () => {
  let dir: string;
  let file: string;
  let db: Kysely<Schema>;
  let statements: string[];
  let reader: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'baton-group-commit-'));
    file = join(dir, 'group.db');
    const connection = new Database(file);
    connection.pragma('journal_mode = WAL');
    connection.pragma('foreign_keys = ON');
    connection.exec(`
      create table rows (id integer primary key, name text not null);
      create table parents (id text primary key);
      create table children (id text primary key,
        parent_id text not null references parents (id) deferrable initially deferred);
    `);
    statements = [];
    db = new Kysely<Schema>({
      dialect: new ImmediateSqliteDialect({
        database: {
          close: () => connection.close(),
          prepare: (text: string) => {
            const statement = connection.prepare(text);
            return {
              reader: statement.reader,
              all: (parameters: readonly unknown[]) => (statements.push(text), statement.all(...parameters)),
              run: (parameters: readonly unknown[]) => (statements.push(text), statement.run(...parameters)),
              iterate: (parameters: readonly unknown[]) => statement.iterate(...parameters),
            };
          },
        },
      }),
    });
    reader = new Database(file, { readonly: true });
  });

  afterEach(async () => {
    reader.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (trx: Kysely<Schema>, name: string) => sql`insert into rows (name) values (${name})`.execute(trx);
  const committedNames = () =>
    (reader.prepare('select name from rows order by id').all() as { name: string }[]).map((row) => row.name);
  /** The transaction statements, the rows' own left out. */
  const control = () => statements.filter((text) => !/^insert into rows/.test(text));

  it('is BEGIN IMMEDIATE … COMMIT for a transaction alone, no statement more', async () => {
    const group = new GroupCommit(db);
    expect(await group.run(async (trx) => (await insert(trx, 'alone'), 'done'))).toBe('done');
    expect(statements).toEqual(['begin immediate', 'insert into rows (name) values (?)', 'commit']);
    expect(committedNames()).toEqual(['alone']);
  });

  it('commits the transactions that start in one turn of the event loop together, each in its savepoint after the first', async () => {
    const group = new GroupCommit(db);
    const results = await Promise.all(
      ['a', 'b', 'c'].map((name) => group.run(async (trx) => (await insert(trx, name), name.toUpperCase()))),
    );
    expect(results).toEqual(['A', 'B', 'C']);
    expect(control()).toEqual([
      'begin immediate',
      'savepoint "member_1"',
      'release "member_1"',
      'savepoint "member_2"',
      'release "member_2"',
      'commit',
    ]);
    expect(committedNames()).toEqual(['a', 'b', 'c']);
  });

  it('settles a transaction only once its group committed', async () => {
    const group = new GroupCommit(db);
    const seen: string[][] = [];
    await Promise.all(
      ['a', 'b'].map((name) =>
        group
          .run((trx) => insert(trx, name))
          .then(() =>
            seen.push([...committedNames(), `commits ${control().filter((text) => text === 'commit').length}`]),
          ),
      ),
    );
    // Each caller, when told, finds every row of the group committed.
    expect(seen).toEqual([
      ['a', 'b', 'commits 1'],
      ['a', 'b', 'commits 1'],
    ]);
  });

  it('undoes a member that throws alone: the others commit, it rejects with its own error', async () => {
    const group = new GroupCommit(db);
    const failure = new Error('member b failed');
    const outcomes = await Promise.allSettled([
      group.run((trx) => insert(trx, 'a')),
      group.run(async (trx) => {
        await insert(trx, 'b');
        throw failure;
      }),
      group.run((trx) => insert(trx, 'c')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(failure);
    expect(control()).toEqual([
      'begin immediate',
      'savepoint "member_1"',
      'rollback to "member_1"',
      'release "member_1"',
      'savepoint "member_2"',
      'release "member_2"',
      'commit',
    ]);
    expect(committedNames()).toEqual(['a', 'c']);
  });

  it('rolls back when the first member throws, and runs the ones after it in a new group', async () => {
    const group = new GroupCommit(db);
    const failure = new Error('member a failed');
    const outcomes = await Promise.allSettled([
      group.run(async (trx) => {
        await insert(trx, 'a');
        throw failure;
      }),
      group.run((trx) => insert(trx, 'b')),
      group.run((trx) => insert(trx, 'c')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBe(failure);
    expect(control()).toEqual([
      'begin immediate',
      'rollback',
      'begin immediate',
      'savepoint "member_1"',
      'release "member_1"',
      'commit',
    ]);
    expect(committedNames()).toEqual(['b', 'c']);
  });

  it('fails every member of a group whose commit fails, and keeps none of their writes', async () => {
    const group = new GroupCommit(db);
    const outcomes = await Promise.allSettled([
      group.run((trx) => insert(trx, 'innocent')),
      // A child without its parent: a deferred foreign key, which only the commit checks.
      group.run((trx) => sql`insert into children (id, parent_id) values ('child', 'missing')`.execute(trx)),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    for (const outcome of outcomes)
      expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY constraint failed/);
    expect(control().slice(-2)).toEqual(['commit', 'rollback']);
    expect(committedNames()).toEqual([]);
    // The connection is free again: the next transaction commits.
    await group.run((trx) => insert(trx, 'after'));
    expect(committedNames()).toEqual(['after']);
  });

  it('runs members one at a time, in the order they came, even when one waits for a timer', async () => {
    const group = new GroupCommit(db);
    await Promise.all([
      group.run(async (trx) => {
        await insert(trx, 'a1');
        await sleep(20);
        await insert(trx, 'a2');
      }),
      group.run((trx) => insert(trx, 'b')),
    ]);
    expect(committedNames()).toEqual(['a1', 'a2', 'b']);
    expect(control().filter((text) => text === 'commit')).toHaveLength(1);
  });

  it('starts a new group once one has its most members', async () => {
    const group = new GroupCommit(db, 2);
    await Promise.all(['a', 'b', 'c'].map((name) => group.run((trx) => insert(trx, name))));
    expect(control().filter((text) => text === 'commit')).toHaveLength(2);
    expect(committedNames()).toEqual(['a', 'b', 'c']);
  });

  it('commits a transaction that starts while a group commits in the next group', async () => {
    const group = new GroupCommit(db);
    const first = group.run((trx) => insert(trx, 'a'));
    // After the event loop turned: the first group is closed to newcomers.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const second = group.run((trx) => insert(trx, 'b'));
    await Promise.all([first, second]);
    expect(control()).toEqual(['begin immediate', 'commit', 'begin immediate', 'commit']);
    expect(committedNames()).toEqual(['a', 'b']);
  });

  it("keeps the caller's frames in the stack of an error thrown inside a member", async () => {
    const group = new GroupCommit(db);
    // The work is not the caller's closure: only the chain of awaits links the two.
    async function callerOfTheTransaction(): Promise<void> {
      await group.run(failingWork);
    }
    // A second member first, so that the failing one waits for its turn and runs in a savepoint.
    const results = await Promise.allSettled([group.run((trx) => insert(trx, 'a')), callerOfTheTransaction()]);
    const stack = String((results[1] as PromiseRejectedResult).reason.stack);
    expect(stack).toContain('failingWork');
    expect(stack).toContain('callerOfTheTransaction');
  });
});

async function failingWork(): Promise<never> {
  await Promise.resolve();
  throw new Error('inside');
}
