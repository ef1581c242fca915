import { sql, type Selectable } from 'kysely';

/** Nothing when `List` names every column of `Table`, else a demand that it name those it misses. */
type NamingEvery<Table, List extends readonly unknown[]> = [Exclude<keyof Table, List[number]>] extends [never]
  ? unknown
  : { missingColumns: Exclude<keyof Table, List[number]> };

/**
 * `JoinedColumns` of `Table` (`joinedColumns<TurnsTable>()('t', [...])`): the list must name every
 * column, so that a column added to the table and not to a joined read fails to compile rather
 * than come back missing from its rows.
 */
export function joinedColumns<Table extends { id: unknown }>() {
  return <const List extends readonly (keyof Table & string)[]>(
    alias: string,
    columns: List & NamingEvery<Table, List>,
  ): JoinedColumns<Table> => new JoinedColumns<Table>(alias, columns);
}

/**
 * A table's columns in a read that joins it as `alias`: each selected as `<alias>_<column>`, so
 * that they clash with no other table's, and read back into a row of the table. The pairs are made
 * once, not for every row read.
 */
export class JoinedColumns<Table extends { id: unknown }> {
  readonly selection;
  private readonly pairs: readonly (readonly [column: string, joined: string])[];
  private readonly idColumn: string;

  constructor(alias: string, columns: readonly (keyof Table & string)[]) {
    this.selection = columns.map((column) => sql.ref(`${alias}.${column}`).as(`${alias}_${column}`));
    this.pairs = columns.map((column) => [column, `${alias}_${column}`] as const);
    this.idColumn = `${alias}_id`;
  }

  /** Whether a left join found no row of the table: its columns are all null. */
  isAbsent(joined: Record<string, unknown>): boolean {
    return joined[this.idColumn] === null;
  }

  /** The table's row in a joined row. */
  rowOf(joined: Record<string, unknown>): Selectable<Table> {
    const row: Record<string, unknown> = {};
    for (const [column, prefixed] of this.pairs) row[column] = joined[prefixed];
    return row as Selectable<Table>;
  }
}
