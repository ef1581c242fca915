import {
  createQueryId,
  type Compilable,
  type DialectAdapter,
  type Insertable,
  type Kysely,
  type QueryResult,
} from 'kysely';
import type { Database } from './database-schema.ts';

/** A compiled parameter that comes from each call's arguments, picked out of them. */
class Slot<Args> {
  constructor(readonly pick: (args: Args) => unknown) {}
}

/**
 * Marks a value of the query as the call's own: `arg('id')`, or `arg((call) => call.ids[0])`,
 * stands for that value of every call's arguments. Typed as the value it stands for, so the
 * builder checks it as one.
 */
export interface Arg<Args> {
  <K extends keyof Args>(key: K): Args[K];
  <T>(pick: (args: Args) => T): T;
}

interface Compiled {
  sql: string;
  /** Slots where the call's values go, and the values compiled into the query (e.g. `version + 1`). */
  parameters: readonly unknown[];
  query: ReturnType<Compilable['compile']>['query'];
}

/**
 * A statement of a fixed shape, built and compiled by Kysely once per dialect, then run with each
 * call's values. Building a query (builders, frozen nodes) and compiling it cost as much as
 * running the small indexed statements of a round trip in SQLite (issue 22's profiles put Kysely's
 * building and compiling at a tenth of a round trip), so the statements of the hot path are built
 * once. The SQL is still Kysely's, so it is the statement the builder would have made each time.
 *
 * The build must give the query the same shape whatever the arguments: every value that varies
 * is an `arg`. Where the shape varies (the columns a patch sets), `QueryTemplates` keeps one
 * template per shape.
 */
export class QueryTemplate<Args, Row> {
  // Per dialect: the SQLite and the PostgreSQL store may live in one process (the tests).
  private readonly compiled = new WeakMap<DialectAdapter, Compiled>();

  constructor(private readonly build: (db: Kysely<Database>, arg: Arg<Args>) => Compilable<Row>) {}

  async execute(db: Kysely<Database>, args: Args): Promise<QueryResult<Row>> {
    const executor = db.getExecutor();
    let compiled = this.compiled.get(executor.adapter);
    if (!compiled) {
      compiled = this.compile(db);
      this.compiled.set(executor.adapter, compiled);
    }
    const parameters = compiled.parameters.map((value) => (value instanceof Slot ? value.pick(args) : value));
    return db.executeQuery<Row>({ sql: compiled.sql, parameters, query: compiled.query, queryId: createQueryId() });
  }

  async first(db: Kysely<Database>, args: Args): Promise<Row | undefined> {
    return (await this.execute(db, args)).rows[0];
  }

  private compile(db: Kysely<Database>): Compiled {
    const arg = ((key: keyof Args | ((args: Args) => unknown)) =>
      new Slot<Args>(typeof key === 'function' ? key : (args) => args[key])) as Arg<Args>;
    const { sql, parameters, query } = this.build(db, arg).compile();
    return { sql, parameters, query };
  }
}

/** Shapes kept per family: far more than any family has (a patch's columns, a list's length). */
const MAX_SHAPES = 256;

/** Templates of one statement whose shape varies, one per shape (see `QueryTemplate`). */
export class QueryTemplates<Args, Row> {
  private readonly templates = new Map<string, QueryTemplate<Args, Row>>();

  /** The template of `shape`, built by `make` the first time the shape is asked for. */
  of(shape: string, make: () => QueryTemplate<Args, Row>): QueryTemplate<Args, Row> {
    let template = this.templates.get(shape);
    if (!template) {
      template = make();
      if (this.templates.size >= MAX_SHAPES) this.templates.clear();
      this.templates.set(shape, template);
    }
    return template;
  }
}

type Row = Record<string, unknown>;

const insertStatements = new QueryTemplates<readonly Row[], Row>();

/**
 * `INSERT INTO table (…) VALUES (…), …` of `rows` (every row with the same columns, in the same
 * order), with `RETURNING returning` when asked: one template per table, column list and number of
 * rows. Errors are the driver's, as from the builder (`insertOrDuplicate` reads them).
 */
export async function insertRows<T extends keyof Database, R extends Row = never>(
  db: Kysely<Database>,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  returning: readonly (keyof Database[T] & string)[] = [],
): Promise<R[]> {
  const first = rows[0];
  if (first === undefined) return [];
  const columns = Object.keys(first);
  const count = rows.length;
  const template = insertStatements.of(`${table}:${count}:${columns.join()}:${returning.join()}`, () => {
    return new QueryTemplate<readonly Row[], Row>((tx, arg) => {
      const values = Array.from({ length: count }, (_, index) =>
        Object.fromEntries(columns.map((column) => [column, arg((call) => call[index]?.[column])])),
      );
      // The table is only known as a name here; its rows were typed by the caller's signature.
      const insert = (tx as unknown as Kysely<Record<string, Row>>).insertInto(table).values(values);
      return returning.length > 0 ? insert.returning(returning as never) : insert;
    });
  });
  return (await template.execute(db, rows as readonly Row[])).rows as R[];
}
