import type { Kysely } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { JsonObject } from '../../domain/json.ts';
import type { LedgerEntryRecord, TurnRecord } from '../../domain/records.ts';
import type { NewWebhookEvent, WebhookEventType } from '../../domain/webhooks.ts';
import type { MigrationDialect } from '../migrations/migration-dialect.ts';
import type { LedgerRepo, TurnRepo } from '../store.ts';
import type { WebhookApps } from '../webhook-apps-cache.ts';
import { atomically } from './atomically.ts';
import type { Database } from './database-schema.ts';
import { fromJsonText } from './json-text.ts';
import { createWebhookRepo } from './webhook-repo.ts';

/**
 * The webhook outbox: ledger and turn writes that webhooks report write their events in the same
 * transaction. Inside `Store.transaction` the events of the whole transaction are written at its
 * end (so a paused turn's `turn.requires_action` follows its calls' `tool_call.pending`); a write
 * outside one is wrapped in a transaction of its own, but only when some app has endpoints.
 */

type TurnWrites = Omit<TurnRepo, 'getWithCalls'>;

/** Kinds of ledger rows somebody outside Baton waits on (server rows are Baton's own). */
const REPORTED_KINDS = new Set<LedgerEntryRecord['kind']>(['client', 'approval']);
const TURN_EVENTS: Partial<Record<TurnRecord['status'], WebhookEventType>> = {
  completed: 'turn.completed',
  failed: 'turn.failed',
  requires_action: 'turn.requires_action',
};

/**
 * The events of one transaction, written when its work is done. Each change's are made then, and
 * only when some app has endpoints: a change of an app without any costs no event objects and ids.
 */
export class OutboxBuffer {
  private readonly changes: (() => NewWebhookEvent[])[] = [];

  add(events: () => NewWebhookEvent[]): void {
    this.changes.push(events);
  }

  get empty(): boolean {
    return this.changes.length === 0;
  }

  events(): NewWebhookEvent[] {
    return this.changes.flatMap((events) => events());
  }
}

export interface OutboxOptions {
  apps: WebhookApps;
  flavor: MigrationDialect;
  /** Binds the undecorated repositories to a transaction (for writes made outside one). */
  ledgerOn: (db: Kysely<Database>) => LedgerRepo;
  turnsOn: (db: Kysely<Database>) => TurnWrites;
}

function callLinks(entry: LedgerEntryRecord): JsonObject {
  return {
    tool_call: `/v1/tool-calls/${entry.id}`,
    thread: `/v1/threads/${entry.conversationId}`,
  };
}

function callEvent(entry: LedgerEntryRecord, type: WebhookEventType): NewWebhookEvent {
  const resolved = entry.state !== 'pending';
  const data: JsonObject = {
    object: 'tool_call',
    id: entry.id,
    state: entry.state,
    kind: entry.kind,
    executor: entry.worker ? 'worker' : 'client',
    tool: entry.toolName,
    agent: entry.agentName,
    thread_id: entry.conversationId,
    turn_id: entry.turnId,
    created_at: entry.createdAt,
    deadline_at: entry.deadlineAt,
    ...(resolved ? { is_error: entry.isError, submitted_by: entry.submittedBy, submitted_at: entry.submittedAt } : {}),
    arguments: entry.arguments,
    links: callLinks(entry),
  };
  return {
    id: newId('evt'),
    appId: entry.appId,
    type,
    conversationId: entry.conversationId,
    agentName: entry.agentName,
    toolName: entry.toolName,
    data,
    createdAt: resolved ? (entry.submittedAt ?? entry.updatedAt) : entry.createdAt,
  };
}

function turnEvent(turn: TurnRecord, type: WebhookEventType): NewWebhookEvent {
  return {
    id: newId('evt'),
    appId: turn.appId,
    type,
    conversationId: turn.conversationId,
    agentName: null, // read from the conversation when written
    toolName: null,
    data: {
      object: 'turn',
      id: turn.id,
      status: turn.status,
      thread_id: turn.conversationId,
      finish_reason: turn.finishReason,
      error: turn.error ? { code: turn.error.code, message: turn.error.message } : null,
      created_at: turn.createdAt,
      updated_at: turn.updatedAt,
      completed_at: turn.completedAt,
      links: { thread: `/v1/threads/${turn.conversationId}`, messages: `/v1/threads/${turn.conversationId}/messages` },
    },
    createdAt: turn.updatedAt,
  };
}

/** Writes the buffer's events of the apps that have endpoints, calls first, then turns; with `db` (a transaction's). */
export async function writeOutbox(
  db: Kysely<Database>,
  options: Pick<OutboxOptions, 'apps' | 'flavor'>,
  buffer: OutboxBuffer,
): Promise<string[]> {
  if (buffer.empty) return [];
  const repo = createWebhookRepo(db, options.flavor);
  const apps = await options.apps.current(() => repo.appsWithEndpoints());
  if (apps.size === 0) return [];
  const kept = buffer.events().filter((event) => apps.has(event.appId));
  if (kept.length === 0) return [];
  const isTurn = (event: NewWebhookEvent) => event.type.startsWith('turn.');
  const ordered = [...kept.filter((event) => !isTurn(event)), ...kept.filter(isTurn)];
  const unnamed = [
    ...new Set(ordered.filter((event) => event.agentName === null).map((event) => event.conversationId)),
  ];
  const ids = unnamed.filter((id): id is string => id !== null);
  if (ids.length > 0) {
    const rows = await db.selectFrom('conversations').select(['id', 'agent_name']).where('id', 'in', ids).execute();
    const names = new Map(rows.map((row) => [row.id, row.agent_name]));
    for (const event of ordered) {
      if (event.agentName !== null || event.conversationId === null) continue;
      const name = names.get(event.conversationId) ?? null;
      event.agentName = name;
      event.data = { ...event.data, agent: name };
    }
  }
  ordered.push(...(await backgroundResponseEvents(db, ordered)));
  await repo.insertEvents(ordered);
  return ordered.map((event) => event.appId);
}

/** Turn statuses that end a background response's run: it is done, or waits for the client's outputs. */
const RESPONSE_EVENTS: Partial<Record<string, WebhookEventType>> = {
  completed: 'response.completed',
  requires_action: 'response.completed',
  failed: 'response.failed',
};

/**
 * `response.completed` / `response.failed` for the turns that ran a Responses `background: true`
 * request, as OpenAI's webhooks send them: nobody holds such a request open, so the app learns it
 * is done here. A turn may carry several responses (a continuation answering its calls); the
 * latest is the one that ran. The request's `background` flag is kept in the response's echo.
 */
async function backgroundResponseEvents(
  db: Kysely<Database>,
  events: readonly NewWebhookEvent[],
): Promise<NewWebhookEvent[]> {
  const ended = events.filter(
    (event) => event.data['object'] === 'turn' && RESPONSE_EVENTS[String(event.data['status'])],
  );
  if (ended.length === 0) return [];
  const rows = await db
    .selectFrom('responses')
    .select(['id', 'turn_id', 'echo', 'created_at'])
    .where(
      'turn_id',
      'in',
      ended.map((event) => String(event.data['id'])),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const latest = new Map(rows.map((row) => [row.turn_id, row]));
  const found: NewWebhookEvent[] = [];
  for (const event of ended) {
    const response = latest.get(String(event.data['id']));
    if (!response || fromJsonText<JsonObject>(response.echo)['background'] !== true) continue;
    const status = String(event.data['status']);
    found.push({
      ...event,
      id: newId('evt'),
      type: RESPONSE_EVENTS[status] ?? 'response.completed',
      data: {
        object: 'response',
        id: response.id,
        status: status === 'failed' ? 'failed' : 'completed',
        requires_action: status === 'requires_action',
        agent: event.agentName,
        conversation_id: event.conversationId,
        turn_id: event.data['id'] ?? null,
        error: event.data['error'] ?? null,
        created_at: response.created_at,
        completed_at: event.createdAt,
        links: { response: `/v1/responses/${response.id}` },
      },
    });
  }
  return found;
}

/**
 * The ledger and turn writes, each adding its events: to `buffer` inside a transaction (written by
 * the store when the work ends), or written at once, atomically with the change, outside one.
 */
export function withWebhookOutbox(
  db: Kysely<Database>,
  ledger: LedgerRepo,
  turns: TurnWrites,
  options: OutboxOptions,
  buffer: OutboxBuffer | null,
): { ledger: LedgerRepo; turns: TurnWrites } {
  /** Runs `change` and records its events, atomically. */
  async function recorded<T>(
    direct: () => Promise<T>,
    bound: (ledger: LedgerRepo, turns: TurnWrites) => Promise<T>,
    eventsOf: (result: T) => NewWebhookEvent[],
  ): Promise<T> {
    if (buffer) {
      const result = await direct();
      buffer.add(() => eventsOf(result));
      return result;
    }
    // Outside a transaction: no app with endpoints, no transaction and no extra statement.
    const apps = await options.apps.current(() => createWebhookRepo(db, options.flavor).appsWithEndpoints());
    if (apps.size === 0) return direct();
    let written: string[] = [];
    const result = await atomically(db, async (trx) => {
      const changed = await bound(options.ledgerOn(trx), options.turnsOn(trx));
      const own = new OutboxBuffer();
      own.add(() => eventsOf(changed));
      written = await writeOutbox(trx, options, own);
      return changed;
    });
    // Told once committed, so the delivery worker that looks finds the events.
    options.apps.eventsWritten(written);
    return result;
  }

  return {
    ledger: {
      ...ledger,
      insert: (entries) =>
        recorded(
          () => ledger.insert(entries),
          (bound) => bound.insert(entries),
          () =>
            entries
              .filter((entry) => REPORTED_KINDS.has(entry.kind) && entry.state === 'pending')
              .map((entry) => callEvent(entry, 'tool_call.pending')),
        ),
      resolve: (id, resolution, guard) =>
        recorded(
          () => ledger.resolve(id, resolution, guard),
          (bound) => bound.resolve(id, resolution, guard),
          (resolved) =>
            resolved && REPORTED_KINDS.has(resolved.kind) ? [callEvent(resolved, 'tool_call.resolved')] : [],
        ),
    },
    turns: {
      ...turns,
      // A turn written already ended or paused (a first step folded into the start) counts; a
      // conversation's copied history (no step of its own) does not.
      insert: (turn) =>
        recorded(
          () => turns.insert(turn),
          (_, bound) => bound.insert(turn),
          () => {
            const type = TURN_EVENTS[turn.status];
            return type && turn.stepCount > 0 ? [turnEvent(turn, type)] : [];
          },
        ),
      update: (id, fromStatuses, patch, leaseToken) =>
        recorded(
          () => turns.update(id, fromStatuses, patch, leaseToken),
          (_, bound) => bound.update(id, fromStatuses, patch, leaseToken),
          (updated) => {
            if (!updated || patch.status === undefined) return [];
            const type = TURN_EVENTS[updated.status];
            return type ? [turnEvent(updated, type)] : [];
          },
        ),
    },
  };
}
