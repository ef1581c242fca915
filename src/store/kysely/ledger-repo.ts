import { sql, type Kysely, type Selectable } from 'kysely';
import type { LedgerKind, LedgerResolution } from '../../domain/records.ts';
import type { PendingCallGroup } from '../../domain/queries.ts';
import type { LedgerRepo } from '../store.ts';
import type { Database, LedgerEntriesTable } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { toJsonText } from './json-text.ts';
import { decodeOptionalCursor, fetchSize, isObject, toPage } from './pagination.ts';
import type { MigrationDialect } from '../migrations/migration-dialect.ts';
import { createWorkerLeaseStatements, type LeaseStatements } from './worker-lease-statements.ts';
import { ledgerEntryFromRow } from './ledger-entry-row.ts';
import { insertRows, QueryTemplate, QueryTemplates } from './query-template.ts';

interface LedgerCursor {
  createdAt: string;
  callIndex: number;
  id: string;
}

function isLedgerCursor(value: unknown): value is LedgerCursor {
  return (
    isObject(value) &&
    typeof value.createdAt === 'string' &&
    typeof value.callIndex === 'number' &&
    typeof value.id === 'string'
  );
}

/** Seconds since midnight of an ISO `created_at`, in SQL both dialects read alike. */
const SECONDS_INTO_DAY = sql`cast(substr(created_at, 12, 2) as integer) * 3600
  + cast(substr(created_at, 15, 2) as integer) * 60
  + cast(substr(created_at, 18, 6) as double precision)`;

interface Resolve {
  id: string;
  resolution: LedgerResolution;
  result: string;
  lease: string | null;
  now: string | null;
  unleased: string | null;
}

const resolveStatements = new QueryTemplates<Resolve, Selectable<LedgerEntriesTable>>();

/**
 * The UPDATE that resolves a pending call. `state = 'pending'` in the UPDATE itself is what makes
 * two concurrent submissions (or a submission racing the deadline sweeper) resolve the call
 * exactly once. A worker's lease is in it too (`guard`): a worker that lost its lease cannot
 * overwrite the result of the one that took over, and nobody else answers a call a worker runs.
 */
function resolveStatement(
  guard: 'none' | 'lease' | 'unleased',
): QueryTemplate<Resolve, Selectable<LedgerEntriesTable>> {
  return new QueryTemplate((db, arg) => {
    const update = db
      .updateTable('ledger_entries')
      .set({
        state: arg((call) => call.resolution.state),
        result: arg('result'),
        is_error: arg((call) => (call.resolution.isError ? 1 : 0)),
        submitted_by: arg((call) => call.resolution.submittedBy),
        submitted_at: arg((call) => call.resolution.submittedAt),
        idempotency_key: arg((call) => call.resolution.idempotencyKey),
        updated_at: arg((call) => call.resolution.submittedAt),
      })
      .where('id', '=', arg('id'))
      .where('state', '=', 'pending');
    const guarded =
      guard === 'lease'
        ? update.where('lease_token', '=', arg('lease')).where('lease_expires_at', '>=', arg('now'))
        : guard === 'unleased'
          ? update.where((eb) => eb.or([eb('lease_token', 'is', null), eb('lease_expires_at', '<', arg('unleased'))]))
          : update;
    return guarded.returningAll();
  });
}

export function createLedgerRepo(db: Kysely<Database>, flavor: MigrationDialect): LedgerRepo {
  // Not `{ ...statements, insert() {…}, … }`: a spread of an object made just before, followed by
  // new keys, gives each call its own hidden class in V8 (12 µs and garbage per repository, made
  // in every transaction); assigning the methods to it does not.
  const ledger: Omit<LedgerRepo, keyof LeaseStatements> = {
    async insert(entries) {
      if (entries.length === 0) return;
      // A single multi-row INSERT is atomic on its own: a step's calls appear together or not at all.
      await insertOrDuplicate('ledger_entries', () =>
        insertRows(
          db,
          'ledger_entries',
          entries.map((entry) => ({
            id: entry.id,
            app_id: entry.appId,
            conversation_id: entry.conversationId,
            turn_id: entry.turnId,
            agent_name: entry.agentName,
            tool_name: entry.toolName,
            kind: entry.kind,
            arguments: toJsonText(entry.arguments),
            arguments_hash: entry.argumentsHash,
            call_index: entry.callIndex,
            state: entry.state,
            deadline_at: entry.deadlineAt,
            timeout_policy: entry.timeoutPolicy,
            result: entry.result === null ? null : toJsonText(entry.result),
            is_error: entry.isError ? 1 : 0,
            submitted_by: entry.submittedBy,
            submitted_at: entry.submittedAt,
            idempotency_key: entry.idempotencyKey,
            created_at: entry.createdAt,
            updated_at: entry.updatedAt,
            trace_context: entry.traceContext ?? null,
            executor: entry.worker ? 'worker' : 'client',
            attempts: entry.worker?.attempts ?? 0,
            max_attempts: entry.worker?.maxAttempts ?? null,
          })),
        ),
      );
    },

    async get(appId, id) {
      const row = await db
        .selectFrom('ledger_entries')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && ledgerEntryFromRow(row);
    },

    async list(filter, page) {
      const after = decodeOptionalCursor(page.cursor, isLedgerCursor);
      let query = db.selectFrom('ledger_entries').selectAll().where('app_id', '=', filter.appId);
      if (filter.state !== undefined) query = query.where('state', '=', filter.state);
      if (filter.agentName !== undefined) query = query.where('agent_name', '=', filter.agentName);
      if (filter.conversationId !== undefined) query = query.where('conversation_id', '=', filter.conversationId);
      if (filter.toolName !== undefined) query = query.where('tool_name', '=', filter.toolName);
      if (filter.createdBefore !== undefined) query = query.where('created_at', '<', filter.createdBefore);
      if (after) {
        // Keyset on (created_at, call_index, id): calls of one step share created_at and are
        // listed in call order; id breaks the remaining ties (other conversations, same instant).
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '>', after.createdAt),
            eb.and([eb('created_at', '=', after.createdAt), eb('call_index', '>', after.callIndex)]),
            eb.and([
              eb('created_at', '=', after.createdAt),
              eb('call_index', '=', after.callIndex),
              eb('id', '>', after.id),
            ]),
          ]),
        );
      }
      const rows = await query
        .orderBy('created_at')
        .orderBy('call_index')
        .orderBy('id')
        .limit(fetchSize(page.limit))
        .execute();
      return toPage(rows.map(ledgerEntryFromRow), page.limit, (entry) => ({
        createdAt: entry.createdAt,
        callIndex: entry.callIndex,
        id: entry.id,
      }));
    },

    async listByTurn(turnId) {
      // callIndex restarts at 0 on every model step, so steps are kept apart by created_at
      // first; within a step (entries inserted together) callIndex decides.
      const rows = await db
        .selectFrom('ledger_entries')
        .selectAll()
        .where('turn_id', '=', turnId)
        .orderBy('created_at')
        .orderBy('call_index')
        .orderBy('id')
        .execute();
      return rows.map(ledgerEntryFromRow);
    },

    async resolve(id, resolution, guard) {
      // `state = 'pending'` in the UPDATE itself is what makes two concurrent submissions
      // (or a submission racing the deadline sweeper) resolve the call exactly once.
      const kind = guard === undefined ? 'none' : 'lease' in guard ? 'lease' : 'unleased';
      const row = await resolveStatements
        .of(kind, () => resolveStatement(kind))
        .first(db, {
          id,
          resolution,
          result: toJsonText(resolution.result),
          lease: guard && 'lease' in guard ? guard.lease : null,
          now: guard && 'lease' in guard ? guard.now : null,
          unleased: guard && 'unleased' in guard ? guard.unleased : null,
        });
      return row && ledgerEntryFromRow(row);
    },

    async listDue(now, limit) {
      if (limit < 1) return [];
      const rows = await db
        .selectFrom('ledger_entries')
        .selectAll()
        .where('state', '=', 'pending')
        .where('deadline_at', 'is not', null)
        .where('deadline_at', '<=', now)
        .orderBy('deadline_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(ledgerEntryFromRow);
    },

    async listChangedSince(appId, since, limit) {
      const rows = await db
        .selectFrom('ledger_entries')
        .selectAll()
        .where('app_id', '=', appId)
        .where('updated_at', '>=', since)
        .where('kind', '!=', 'server')
        .orderBy('updated_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(ledgerEntryFromRow);
    },

    async summarisePending(now, ageBounds) {
      const nowMs = Date.parse(now);
      // An entry created at or after `now - bound` is at most `bound` seconds old: buckets are
      // compared as ISO instants, which sort as text on both dialects (no date functions).
      const thresholds = ageBounds.map((bound) => new Date(nowMs - bound * 1000).toISOString());
      const bucket =
        thresholds.length === 0
          ? sql<number>`0`
          : sql<number>`case ${sql.join(
              thresholds.map((threshold, index) => sql`when created_at >= ${threshold} then ${sql.lit(index)}`),
              sql` `,
            )} else ${sql.lit(thresholds.length)} end`;
      // The ages' sum without dialect-specific date arithmetic: rows are grouped by day too, and the
      // seconds within each day are added up from the ISO text (HH at 12, MM at 15, SS.mmm at 18).
      const rows = await db
        .selectFrom('ledger_entries')
        .select([
          'agent_name',
          'kind',
          sql<number>`case when deadline_at is not null and deadline_at <= ${now} then 1 else 0 end`.as('overdue'),
          bucket.as('age_bucket'),
          sql<string>`substr(created_at, 1, 10)`.as('day'),
          sql<number | string>`count(*)`.as('n'),
          sql<number | string>`sum(${SECONDS_INTO_DAY})`.as('day_seconds'),
        ])
        .where('state', '=', 'pending')
        .groupBy(['agent_name', 'kind', sql`overdue`, sql`age_bucket`, sql`day`])
        .execute();
      const groups = new Map<string, PendingCallGroup>();
      for (const row of rows) {
        const overdue = Number(row.overdue) === 1;
        const ageBucket = Number(row.age_bucket);
        const key = JSON.stringify([row.agent_name, row.kind, overdue, ageBucket]);
        let group = groups.get(key);
        if (!group) {
          group = {
            agentName: row.agent_name,
            kind: row.kind as LedgerKind,
            overdue,
            ageBucket,
            count: 0,
            ageSecondsSum: 0,
          };
          groups.set(key, group);
        }
        const count = Number(row.n);
        const dayStart = Date.parse(`${row.day}T00:00:00.000Z`) / 1000;
        group.count += count;
        group.ageSecondsSum += count * (nowMs / 1000 - dayStart) - Number(row.day_seconds);
      }
      return [...groups.values()];
    },

    async countPending(conversationId) {
      const row = await db
        .selectFrom('ledger_entries')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('conversation_id', '=', conversationId)
        .where('state', '=', 'pending')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
  return Object.assign(createWorkerLeaseStatements(db, flavor), ledger);
}
