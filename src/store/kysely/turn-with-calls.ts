import type { Kysely } from 'kysely';
import type { LedgerEntryRecord } from '../../domain/records.ts';
import type { TurnWithCalls } from '../store.ts';
import type { Database, LedgerEntriesTable } from './database-schema.ts';
import { joinedColumns } from './joined-columns.ts';
import { ledgerEntryFromRow } from './ledger-entry-row.ts';
import { QueryTemplate, type Arg } from './query-template.ts';
import { turnFromRow } from './turn-repo.ts';

/** The columns of `ledger_entries`, every one, in a read that joins it as `l`. */
export const JOINED_LEDGER = joinedColumns<LedgerEntriesTable>()('l', [
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
]);

/** The ledger rows of a read that joined `JOINED_LEDGER`, in its order (a turn without calls has none). */
export function callsOfJoinedRows(rows: readonly Record<string, unknown>[]): LedgerEntryRecord[] {
  return rows.filter((row) => !JOINED_LEDGER.isAbsent(row)).map((row) => ledgerEntryFromRow(JOINED_LEDGER.rowOf(row)));
}

const selectTurnWithCalls = new QueryTemplate((db, arg: Arg<{ id: string }>) =>
  db
    .selectFrom('turns')
    .leftJoin('ledger_entries as l', 'l.turn_id', 'turns.id')
    .selectAll('turns')
    .select(JOINED_LEDGER.selection)
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
