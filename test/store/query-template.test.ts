import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { recordingSqlite } from '../helpers/recording-sqlite.ts';
import type { Database as Schema } from '../../src/store/kysely/database-schema.ts';
import { insertRows, QueryTemplate, QueryTemplates, type Arg } from '../../src/store/kysely/query-template.ts';

const { db: sqlite, received } = recordingSqlite();
// A pool that records instead of connecting: only the statements sent matter here.
const postgres = new Kysely<Schema>({
  dialect: new PostgresDialect({
    pool: {
      connect: async () => ({
        query: async (text: string, parameters: readonly unknown[]) => {
          received.push({ sql: text, parameters });
          return { rows: [], command: 'SELECT', rowCount: 0 };
        },
        release: () => undefined,
      }),
      end: async () => undefined,
    } as never,
  }),
});

afterAll(async () => {
  await sqlite.destroy();
  await postgres.destroy();
});

const selectItems = new QueryTemplate((db, arg: Arg<{ conversationId: string; after: number }>) =>
  db
    .selectFrom('items')
    .select(['id', 'seq'])
    .where('conversation_id', '=', arg('conversationId'))
    .where('seq', '>', arg('after'))
    .orderBy('seq')
    .limit(10),
);

describe('statements built once (query templates)', () => {
  it('runs the SQL the builder makes, on each dialect, with each call’s values and its own constants', async () => {
    await sql`create table items (seq integer primary key, id text, conversation_id text)`.execute(sqlite);
    await sql`insert into items (seq, id, conversation_id) values (1, 'a', 'c1'), (2, 'b', 'c1'), (3, 'c', 'c2')`.execute(
      sqlite,
    );
    for (const db of [sqlite, postgres]) {
      const built = db
        .selectFrom('items')
        .select(['id', 'seq'])
        .where('conversation_id', '=', 'x')
        .where('seq', '>', 0)
        .orderBy('seq')
        .limit(10)
        .compile();
      received.length = 0;
      await selectItems.execute(db, { conversationId: 'c9', after: 7 });
      // The limit was compiled in as a constant; the two values are the call's.
      expect(received).toEqual([{ sql: built.sql, parameters: ['c9', 7, 10] }]);
    }
    expect((await selectItems.execute(sqlite, { conversationId: 'c1', after: 0 })).rows).toEqual([
      { id: 'a', seq: 1 },
      { id: 'b', seq: 2 },
    ]);
    expect((await selectItems.execute(sqlite, { conversationId: 'c1', after: 1 })).rows).toEqual([{ id: 'b', seq: 2 }]);
    expect((await selectItems.execute(sqlite, { conversationId: 'c2', after: 0 })).rows).toEqual([{ id: 'c', seq: 3 }]);
  });

  it('keeps one template per shape, and inserts any number of rows with RETURNING', async () => {
    await sql`create table turns (id text primary key, status text, step_count integer)`.execute(sqlite);
    const shapes = new QueryTemplates<{ id: string }, unknown>();
    let made = 0;
    const make = () => {
      made += 1;
      return new QueryTemplate<{ id: string }, unknown>((db, arg) =>
        db.selectFrom('turns').selectAll().where('id', '=', arg('id')),
      );
    };
    const first = shapes.of('by-id', make);
    expect(shapes.of('by-id', make)).toBe(first);
    expect(shapes.of('other', make)).not.toBe(first);
    expect(made).toBe(2);

    const row = (id: string, step: number) => ({ id, status: 'in_progress', step_count: step }) as never;
    await insertRows(sqlite, 'turns', [row('t1', 1)]);
    const returned = await insertRows<'turns', { id: string }>(sqlite, 'turns', [row('t2', 2), row('t3', 3)], ['id']);
    expect(returned).toEqual([{ id: 't2' }, { id: 't3' }]);
    expect(await insertRows(sqlite, 'turns', [])).toEqual([]);
    const stored = await sqlite.selectFrom('turns').select(['id', 'step_count']).orderBy('id').execute();
    expect(stored).toEqual([
      { id: 't1', step_count: 1 },
      { id: 't2', step_count: 2 },
      { id: 't3', step_count: 3 },
    ]);
    // A duplicate key fails as the builder's insert would, with the driver's own error.
    await expect(insertRows(sqlite, 'turns', [row('t1', 9)])).rejects.toMatchObject({
      code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
    });
  });
});
