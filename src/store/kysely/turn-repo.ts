import type { Kysely, Selectable, Updateable } from 'kysely';
import type { FinishReason, TurnError, TurnOptions, TurnRecord, TurnStatus, TurnUsage } from '../../domain/records.ts';
import type { TurnPatch, TurnRepo } from '../store.ts';
import type { Database, TurnsTable } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, fromNullableJsonText, toJsonText } from './json-text.ts';
import { insertRows, QueryTemplate, QueryTemplates } from './query-template.ts';

export function turnFromRow(row: Selectable<TurnsTable>): TurnRecord {
  return {
    id: row.id,
    appId: row.app_id,
    conversationId: row.conversation_id,
    agentId: row.agent_id,
    agentVersion: row.agent_version,
    status: row.status as TurnStatus,
    options: fromJsonText<TurnOptions>(row.options),
    finishReason: row.finish_reason as FinishReason | null,
    error: fromNullableJsonText<TurnError>(row.error),
    stepCount: row.step_count,
    usage: fromJsonText<TurnUsage>(row.usage),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    leaseToken: row.lease_token,
    takeovers: Number(row.takeovers),
    requestKey: row.request_key,
  };
}

/** Only the fields present in the patch are written; `null` clears, `undefined` leaves as is. */
function toChanges(patch: TurnPatch): Updateable<TurnsTable> {
  const changes: Updateable<TurnsTable> = { updated_at: patch.updatedAt };
  if (patch.status !== undefined) changes.status = patch.status;
  if (patch.finishReason !== undefined) changes.finish_reason = patch.finishReason;
  if (patch.error !== undefined) changes.error = patch.error === null ? null : toJsonText(patch.error);
  if (patch.stepCount !== undefined) changes.step_count = patch.stepCount;
  if (patch.usage !== undefined) changes.usage = toJsonText(patch.usage);
  if (patch.completedAt !== undefined) changes.completed_at = patch.completedAt;
  if (patch.options !== undefined) changes.options = toJsonText(patch.options);
  if (patch.leaseToken !== undefined) changes.lease_token = patch.leaseToken;
  return changes;
}

interface TurnUpdate {
  id: string;
  fromStatuses: readonly TurnStatus[];
  changes: Updateable<TurnsTable>;
  leaseToken: string | null;
}

const turnUpdates = new QueryTemplates<TurnUpdate, Selectable<TurnsTable>>();

/** The turn repository but its joined read with the ledger (`turn-with-calls.ts`, added by the store). */
export function createTurnRepo(db: Kysely<Database>): Omit<TurnRepo, 'getWithCalls'> {
  return {
    async insert(turn) {
      await insertOrDuplicate('turns', () =>
        insertRows(db, 'turns', [
          {
            id: turn.id,
            app_id: turn.appId,
            conversation_id: turn.conversationId,
            agent_id: turn.agentId,
            agent_version: turn.agentVersion,
            status: turn.status,
            options: toJsonText(turn.options),
            finish_reason: turn.finishReason,
            error: turn.error === null ? null : toJsonText(turn.error),
            step_count: turn.stepCount,
            usage: toJsonText(turn.usage),
            created_at: turn.createdAt,
            updated_at: turn.updatedAt,
            completed_at: turn.completedAt,
            lease_token: turn.leaseToken,
            takeovers: turn.takeovers,
            request_key: turn.requestKey,
          },
        ]),
      );
    },

    async get(id) {
      const row = await db.selectFrom('turns').selectAll().where('id', '=', id).executeTakeFirst();
      return row && turnFromRow(row);
    },

    async update(id, fromStatuses, patch, leaseToken) {
      // `IN ()` is not valid SQL; no allowed source status means nothing can match.
      if (fromStatuses.length === 0) return undefined;
      // The status guard lives in the UPDATE itself so that, e.g., a cancel and a completion
      // racing on the same turn cannot both apply; the lease guard, so that a run that lost the
      // turn to a takeover cannot write.
      const changes = toChanges(patch);
      const columns = Object.keys(changes) as (keyof TurnsTable)[];
      const statuses = fromStatuses.length;
      const leased = leaseToken !== undefined;
      const template = turnUpdates.of(
        `${columns.join()}:${statuses}:${leased}`,
        () =>
          new QueryTemplate((tx, arg) => {
            const update = tx
              .updateTable('turns')
              .set(Object.fromEntries(columns.map((column) => [column, arg((call) => call.changes[column])])))
              .where('id', '=', arg('id'))
              .where(
                'status',
                'in',
                Array.from({ length: statuses }, (_, index) => arg((call) => call.fromStatuses[index] ?? null)),
              );
            return (leased ? update.where('lease_token', '=', arg('leaseToken')) : update).returningAll();
          }),
      );
      const row = await template.first(db, { id, fromStatuses, changes, leaseToken: leaseToken ?? null });
      return row && turnFromRow(row);
    },

    async takeOver(id, before, leaseToken, now) {
      // Silent since `before` is the condition of the UPDATE itself: of two processes taking the
      // same turn, the second finds it freshly touched by the first and gets nothing.
      const row = await db
        .updateTable('turns')
        .set((eb) => ({ lease_token: leaseToken, takeovers: eb('takeovers', '+', 1), updated_at: now }))
        .where('id', '=', id)
        .where('status', '=', 'in_progress')
        .where('updated_at', '<', before)
        .returningAll()
        .executeTakeFirst();
      return row && turnFromRow(row);
    },

    async listStale(before, limit) {
      if (limit < 1) return [];
      const rows = await db
        .selectFrom('turns')
        .selectAll()
        .where('status', '=', 'in_progress')
        .where('updated_at', '<', before)
        .orderBy('updated_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(turnFromRow);
    },

    async listStranded(before, limit) {
      if (limit < 1) return [];
      const rows = await db
        .selectFrom('turns')
        .selectAll()
        .where('status', '=', 'requires_action')
        .where('updated_at', '<', before)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('ledger_entries')
                .select('ledger_entries.id')
                .whereRef('ledger_entries.turn_id', '=', 'turns.id')
                .where('ledger_entries.state', '=', 'pending')
                .where('ledger_entries.kind', '!=', 'client_async'),
            ),
          ),
        )
        .orderBy('updated_at')
        .limit(limit)
        .execute();
      return rows.map(turnFromRow);
    },
  };
}
