import { sql, type Kysely, type Selectable } from 'kysely';
import type { LedgerEntryRecord } from '../../domain/records.ts';
import type { TurnWithCalls } from '../store.ts';
import type { Database, LedgerEntriesTable } from './database-schema.ts';
import { ledgerEntryFromRow } from './ledger-entry-row.ts';
import { QueryTemplate, type Arg } from './query-template.ts';
import { turnFromRow } from './turn-repo.ts';

/** Every column of `ledger_entries`, named once so the joined read below can prefix them. */
const LEDGER_COLUMNS = [
  'id',
  'app_id',
  'conversation_id',
  'turn_id',
  'agent_name',
  'tool_name',
  'kind',
  'arguments',
  'arguments_hash',
  'call_index',
  'state',
  'deadline_at',
  'timeout_policy',
  'result',
  'is_error',
  'submitted_by',
  'submitted_at',
  'idempotency_key',
  'created_at',
  'updated_at',
  'trace_context',
  'executor',
  'attempts',
  'max_attempts',
  'lease_token',
  'lease_holder',
  'lease_key_id',
  'leased_at',
  'lease_expires_at',
  'tool_data_removed_at',
] as const satisfies readonly (keyof LedgerEntriesTable)[];

// A column added to the table and not to the list above fails to compile here.
type MissingLedgerColumn = Exclude<keyof LedgerEntriesTable, (typeof LEDGER_COLUMNS)[number]>;
const everyLedgerColumn: [MissingLedgerColumn] extends [never] ? true : MissingLedgerColumn = true;
void everyLedgerColumn;

/** Each column with its name in the joined row, made once rather than for every row read. */
const PREFIXED_COLUMNS = LEDGER_COLUMNS.map((column) => [column, `l_${column}` as const] as const);

/** The ledger's columns of a read that joins `ledger_entries as l`, each named `l_<column>`. */
export const JOINED_LEDGER_COLUMNS = LEDGER_COLUMNS.map((column) => sql.ref(`l.${column}`).as(`l_${column}`));

/**
 * The ledger rows of a read that joined `ledger_entries as l` with `JOINED_LEDGER_COLUMNS`, in its
 * order: a left join's row of nulls on the ledger's side stands for a turn without calls.
 */
export function callsOfJoinedRows(rows: readonly Record<string, unknown>[]): LedgerEntryRecord[] {
  return rows
    .filter((row) => row.l_id !== null)
    .map((row) => {
      const entry: Record<string, unknown> = {};
      for (const [column, prefixed] of PREFIXED_COLUMNS) entry[column] = row[prefixed];
      return ledgerEntryFromRow(entry as Selectable<LedgerEntriesTable>);
    });
}

const selectTurnWithCalls = new QueryTemplate((db, arg: Arg<{ id: string }>) =>
  db
    .selectFrom('turns')
    .leftJoin('ledger_entries as l', 'l.turn_id', 'turns.id')
    .selectAll('turns')
    .select(JOINED_LEDGER_COLUMNS)
    .where('turns.id', '=', arg('id'))
    .orderBy('l.created_at')
    .orderBy('l.call_index')
    .orderBy('l.id'),
);

/**
 * A turn with its ledger rows in call order, in one statement (a left join: a turn without calls
 * is one row of nulls on the ledger's side). Reading a paused conversation takes both on every
 * request, so one database round trip instead of two.
 */
export async function readTurnWithCalls(db: Kysely<Database>, id: string): Promise<TurnWithCalls | undefined> {
  const { rows } = await selectTurnWithCalls.execute(db, { id });
  const first = rows[0];
  if (!first) return undefined;
  return { turn: turnFromRow(first), calls: callsOfJoinedRows(rows) };
}
