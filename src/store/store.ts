import type {
  AgentDefinition,
  AgentRecord,
  AgentVersionRecord,
  ApiKeyRecord,
  AppRecord,
  AppResourceRecord,
  JsonObject,
  ResourceCollection,
  SecretRecord,
  SessionRecord,
  ConversationRecord,
  ItemRecord,
  LedgerEntryRecord,
  LedgerResolution,
  NewItem,
  QueuedInputRecord,
  ResponseRecord,
  TurnOptions,
  TurnRecord,
  TurnStatus,
  FinishReason,
  TurnError,
  TurnUsage,
} from '../domain/records.ts';
import type { Page, PageRequest } from '../domain/page.ts';
import type {
  ConversationFilter,
  LeaseGuard,
  LedgerFilter,
  PendingCallGroup,
  WindowItem,
  WorkerClaim,
} from '../domain/queries.ts';
import type { Signals } from './signals.ts';
import type { AuditEventRecord } from '../domain/lifecycle.ts';
import type { IdempotencyRepo } from './idempotency-repo-contract.ts';
import type {
  AppDeletion,
  AppPurgeBatch,
  AppPurgeFinish,
  AppTombstone,
  LifecycleRepo,
} from './lifecycle-repo-contract.ts';
import type { WebhookRepo } from './webhook-repo-contract.ts';

export type { IdempotencyLease, IdempotencyRepo, IdempotencyReservation } from './idempotency-repo-contract.ts';
export { LEGACY_IDEMPOTENCY_LEASE_MS } from './idempotency-repo-contract.ts';
export type {
  AppDeletion,
  AppPurgeBatch,
  AppPurgeFinish,
  AppPurgeProgress,
  AppTombstone,
  LifecycleRepo,
  RetentionScope,
} from './lifecycle-repo-contract.ts';
export type { WebhookDeliveryOutcome, WebhookRepo } from './webhook-repo-contract.ts';

/**
 * Repository interfaces. The engine and the faces depend on these only; `store/kysely/`
 * implements them for SQLite (better-sqlite3) and Postgres (pg, PGlite in tests).
 * Every method that takes an `appId` scopes its query by it: another app's id is "not found".
 */

export interface AppRepo {
  insert(app: AppRecord): Promise<void>;
  /** A live app (a deleted one, still being purged, is not found: see `tombstone`). */
  get(id: string): Promise<AppRecord | undefined>;
  getByName(name: string): Promise<AppRecord | undefined>;
  /** Every live app of a project (apps are few; callers filter and page in memory). */
  listByProject(project: string): Promise<AppRecord[]>;
  /** Replaces the settings when the stored revision is `expectedRevision`; undefined on a lost race. */
  updateSettings(
    id: string,
    expectedRevision: number,
    settings: JsonObject,
    updatedAt: string,
  ): Promise<AppRecord | undefined>;
  /**
   * Deletes a live app in one short transaction, with `deletion.audit` (issue 21): a tombstone.
   * From its commit the app is not found by id or name, not listed, its keys do not authenticate
   * (`ApiKeyRepo.findByHash`) and its name is free for a new app; its rows stay until purged
   * (`purgeBatch`, `finishPurge`). False when no live app has this id.
   */
  tombstone(id: string, deletion: AppDeletion): Promise<boolean>;
  /** Deleted apps whose purge has not finished, oldest deletion first. */
  listTombstones(): Promise<AppTombstone[]>;
  /**
   * Deletes at most `limit` rows of a deleted app from the first of its tables (in purge order,
   * from `fromTable` on) that still holds some, in one transaction that adds them to the app's
   * purge progress. Null when those tables hold none, or the app is not deleted (a live app's rows
   * are never touched).
   */
  purgeBatch(appId: string, batch: { limit: number; at: string; fromTable?: string }): Promise<AppPurgeBatch | null>;
  /**
   * Ends a deleted app's purge in one transaction: if no table holds a row of it any more, its row
   * goes and the audit event `event` makes of the final tombstone is written. Otherwise names a
   * table written to behind the purge (`rows_left`), or says the purge was finished already (`gone`).
   */
  finishPurge(appId: string, event: (tombstone: AppTombstone) => AuditEventRecord | null): Promise<AppPurgeFinish>;
  /**
   * Deletes the app and everything it owns now, tombstone and batches included, without an audit
   * event (the app service and the engine record who deleted; this is the store's own shortcut).
   */
  delete(id: string): Promise<boolean>;
}

/** Tools and toolsets: CES-shaped bodies, compare-and-set on `revision`. */
export interface ResourceRepo {
  /** Throws `DuplicateKeyError` when the id is taken in this app and collection. */
  insert(record: AppResourceRecord): Promise<void>;
  get(appId: string, collection: ResourceCollection, id: string): Promise<AppResourceRecord | undefined>;
  /** The records that exist among `ids`, in the order of `ids`. */
  getMany(appId: string, collection: ResourceCollection, ids: readonly string[]): Promise<AppResourceRecord[]>;
  /** Every record of the collection, by id (an app holds few; callers filter and page in memory). */
  list(appId: string, collection: ResourceCollection): Promise<AppResourceRecord[]>;
  /** Replaces the body when the stored revision is `expectedRevision`; undefined on a lost race. */
  update(
    appId: string,
    collection: ResourceCollection,
    id: string,
    expectedRevision: number,
    body: JsonObject,
    updatedAt: string,
  ): Promise<AppResourceRecord | undefined>;
  /** With `expectedRevision`, deletes only that revision (an etag-checked delete). */
  delete(appId: string, collection: ResourceCollection, id: string, expectedRevision?: number): Promise<boolean>;
}

export interface SecretRepo {
  /** Throws `DuplicateKeyError` when the id is taken in this app. */
  insert(record: SecretRecord): Promise<void>;
  get(appId: string, id: string): Promise<SecretRecord | undefined>;
  list(appId: string): Promise<SecretRecord[]>;
  update(
    appId: string,
    id: string,
    expectedRevision: number,
    patch: { ciphertext: string; displayName: string | null },
    updatedAt: string,
  ): Promise<SecretRecord | undefined>;
  delete(appId: string, id: string): Promise<boolean>;
}

export interface SessionRepo {
  /** Throws `DuplicateKeyError` when the session id is taken in this app. */
  insert(record: SessionRecord): Promise<void>;
  get(appId: string, id: string): Promise<SessionRecord | undefined>;
  getByConversation(conversationId: string): Promise<SessionRecord | undefined>;
  list(appId: string): Promise<SessionRecord[]>;
  update(
    appId: string,
    id: string,
    patch: { ended?: boolean; variables?: JsonObject; turnCount?: number; updatedAt: string },
  ): Promise<SessionRecord | undefined>;
}

export interface ApiKeyRepo {
  insert(key: ApiKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** One key of an app (undefined when the id is another app's). */
  get(appId: string, id: string): Promise<ApiKeyRecord | undefined>;
  /** An app's keys, newest first, at most `limit`. */
  listByApp(appId: string, limit: number): Promise<ApiKeyRecord[]>;
  /** Sets `revoked_at` unless already revoked; returns the key as it now is. */
  revoke(appId: string, id: string, at: string): Promise<ApiKeyRecord | undefined>;
  /** Moves the expiry earlier only (a rotation's grace never extends a key that expires sooner). */
  expireBy(appId: string, id: string, at: string): Promise<void>;
  /** Records a use; a no-op when the key was used after `staleBefore` already. */
  touch(id: string, at: string, staleBefore: string): Promise<void>;
  count(): Promise<number>;
}

export interface AgentRepo {
  /** Inserts the agent and its version row. Throws `DuplicateKeyError` when (appId, name) exists. */
  insert(agent: AgentRecord): Promise<void>;
  get(appId: string, name: string): Promise<AgentRecord | undefined>;
  getById(id: string): Promise<AgentRecord | undefined>;
  /** Ordered by name; cursor is opaque. */
  list(appId: string, page: PageRequest): Promise<Page<AgentRecord>>;
  /**
   * Replaces the definition when the stored version equals `expectedVersion`, bumping the
   * version and writing a version row. Returns the new record, or undefined on a lost race.
   */
  update(
    appId: string,
    name: string,
    expectedVersion: number,
    definition: AgentDefinition,
    updatedAt: string,
  ): Promise<AgentRecord | undefined>;
  /** Deletes the agent row; version rows stay so paused turns can still resume. */
  delete(appId: string, name: string): Promise<boolean>;
  getVersion(agentId: string, version: number): Promise<AgentVersionRecord | undefined>;
}

export interface ConversationPatch {
  activeTurnId?: string | null;
  headTurnId?: string | null;
  updatedAt: string;
}

/** A turn with all its ledger rows, in call order (as `LedgerRepo.listByTurn`). */
export interface TurnWithCalls {
  turn: TurnRecord;
  calls: LedgerEntryRecord[];
}

/** A conversation with its active turn, if it has one, read at one moment. */
export interface ConversationWithActiveTurn {
  conversation: ConversationRecord;
  active: TurnWithCalls | undefined;
}

export interface ConversationRepo {
  insert(conversation: ConversationRecord): Promise<void>;
  get(appId: string, id: string): Promise<ConversationRecord | undefined>;
  /**
   * The conversation with its active turn and that turn's ledger rows, in one read: a request
   * that answers a paused turn needs all three, and reads nothing else before it writes.
   */
  getWithActiveTurn(appId: string, id: string): Promise<ConversationWithActiveTurn | undefined>;
  /**
   * Applies the patch and increments `version` only if the stored version is `expectedVersion`.
   * Returns the updated record, or undefined when another writer got there first.
   */
  compareAndSet(id: string, expectedVersion: number, patch: ConversationPatch): Promise<ConversationRecord | undefined>;
  /**
   * Applies the patch and increments `version` whatever it is, for writers whose right to write
   * is guarded elsewhere (the turn's status and lease). Undefined when the conversation does not
   * exist in this app.
   */
  bump(appId: string, id: string, patch: ConversationPatch): Promise<ConversationRecord | undefined>;
  /**
   * Deletes the conversation and everything that belongs to it: items, turns, ledger entries,
   * queued inputs and responses. Returns false if it did not exist (in this app).
   */
  delete(appId: string, id: string): Promise<boolean>;
  /** An app's conversations, newest first (createdAt, then id, descending). */
  list(filter: ConversationFilter, page: PageRequest): Promise<Page<ConversationRecord>>;
}

export interface TurnPatch {
  status?: TurnStatus;
  finishReason?: FinishReason | null;
  error?: TurnError | null;
  stepCount?: number;
  usage?: TurnUsage;
  updatedAt: string;
  completedAt?: string | null;
  /** New per-request settings for the rest of the turn (a resume that declares its own tools). */
  options?: TurnOptions;
  /** A new run holds the turn (a start or resume); see `TurnRecord.leaseToken`. */
  leaseToken?: string;
}

export interface TurnRepo {
  insert(turn: TurnRecord): Promise<void>;
  get(id: string): Promise<TurnRecord | undefined>;
  /** The turn with all its ledger rows, in call order (as `LedgerRepo.listByTurn`), in one read. */
  getWithCalls(id: string): Promise<TurnWithCalls | undefined>;
  /**
   * Updates the turn only if its status is one of `fromStatuses` and, when `leaseToken` is given,
   * the run holding it is that one. Returns the updated record or undefined.
   */
  update(
    id: string,
    fromStatuses: readonly TurnStatus[],
    patch: TurnPatch,
    leaseToken?: string,
  ): Promise<TurnRecord | undefined>;
  /**
   * Hands an `in_progress` turn silent since `before` to a new run (`leaseToken`), counting a
   * takeover. Undefined when it is not silent any more, ended, or another process took it first.
   */
  takeOver(id: string, before: string, leaseToken: string, now: string): Promise<TurnRecord | undefined>;
  /** Turns still `in_progress` whose `updatedAt` is older than `before` (their process died). */
  listStale(before: string, limit: number): Promise<TurnRecord[]>;
  /**
   * Turns still `requires_action`, last updated before `before`, with no pending ledger entry:
   * every call was answered but the resume never started (the process died in between).
   */
  listStranded(before: string, limit: number): Promise<TurnRecord[]>;
}

export interface ItemRepo {
  /** Appends in the given order and returns them with their `seq`. Never updates existing rows. */
  append(items: NewItem[]): Promise<ItemRecord[]>;
  /** Oldest first, after the cursor. */
  list(conversationId: string, page: PageRequest): Promise<Page<ItemRecord>>;
  /**
   * The latest `limit` items of a conversation, oldest first, with only what a model prompt needs.
   * Its cost does not depend on the history's length, and reading fewer columns per row is most
   * of a turn's cost once the history is long. Given `atVersion`, the conversation's version the
   * caller read, the store may answer from the windows it keeps (history-windows.ts).
   */
  listWindow(conversationId: string, limit: number, atVersion?: number): Promise<WindowItem[]>;
  listByTurn(turnId: string): Promise<ItemRecord[]>;
  /** The items of one group (an assistant step, a results message), oldest first, in any conversation. */
  listByGroup(groupId: string): Promise<ItemRecord[]>;
  /** Oldest first, items with `seq` greater than `afterSeq` (0 for the start). Faces page whole messages with it. */
  listAfterSeq(conversationId: string, afterSeq: number, limit: number): Promise<ItemRecord[]>;
}

/**
 * Server calls claimed before they run (see migration 0008). A claim is released when its step
 * commits; one still there when its turn is recovered ran with an unknown outcome.
 */
export interface ServerCallClaimRepo {
  /** Throws `DuplicateKeyError` when the call is claimed already: only one process may run it. */
  claim(entry: LedgerEntryRecord, claimedAt: string): Promise<void>;
  /** The claimant is alive: it renews while the call runs, as a running turn's heartbeat does. */
  renew(id: string, claimedAt: string): Promise<void>;
  release(id: string): Promise<void>;
  listByTurn(turnId: string): Promise<LedgerEntryRecord[]>;
  releaseTurn(turnId: string): Promise<void>;
  /** Claims not renewed since `before`: their process died while the call ran. */
  listStale(before: string, limit: number): Promise<LedgerEntryRecord[]>;
}

export interface LedgerRepo {
  insert(entries: LedgerEntryRecord[]): Promise<void>;
  get(appId: string, id: string): Promise<LedgerEntryRecord | undefined>;
  /** Oldest first (createdAt, then id). */
  list(filter: LedgerFilter, page: PageRequest): Promise<Page<LedgerEntryRecord>>;
  /** All entries of a turn, by callIndex. */
  listByTurn(turnId: string): Promise<LedgerEntryRecord[]>;
  /**
   * Moves an entry out of `pending`. Only succeeds while the entry is still pending, so two
   * concurrent resolutions cannot both apply. Returns the updated entry or undefined.
   */
  resolve(id: string, resolution: LedgerResolution, guard?: LeaseGuard): Promise<LedgerEntryRecord | undefined>;
  /**
   * Claims, for a tool worker, at most `claim.limit` pending worker calls that no live lease holds
   * and whose attempts are not spent, oldest first, each under a new lease counted as an attempt.
   * Run it in a transaction: on PostgreSQL the candidates are locked with SKIP LOCKED, so claims on
   * several replicas at once take disjoint calls.
   */
  claim(claim: WorkerClaim): Promise<LedgerEntryRecord[]>;
  /** Extends a live lease held by `token` to `expiresAt`; undefined when the token holds no live lease on the call. */
  renewLease(
    appId: string,
    id: string,
    token: string,
    now: string,
    expiresAt: string,
  ): Promise<LedgerEntryRecord | undefined>;
  /** Gives back a claim held by `token` (not counted as an attempt); undefined when the token holds no live lease. */
  releaseLease(appId: string, id: string, token: string, now: string): Promise<LedgerEntryRecord | undefined>;
  /** Pending worker calls whose lease ended before `now` (their worker died or stalled), oldest lapse first. */
  listLapsedLeases(now: string, limit: number): Promise<LedgerEntryRecord[]>;
  /** Clears a lapsed lease (still held by `token`) so the call shows as waiting for a worker again. */
  clearLapsedLease(appId: string, id: string, token: string): Promise<boolean>;
  /** Whether any call of `toolName` in the app was made for workers (a request's own worker tools). */
  hasWorkerCalls(appId: string, toolName: string): Promise<boolean>;
  /** Pending entries whose deadline is at or before `now`, oldest deadline first. */
  listDue(now: string, limit: number): Promise<LedgerEntryRecord[]>;
  countPending(conversationId: string): Promise<number>;
  /**
   * Pending entries of every app, counted by agent, kind, deadline passed or not, and age bucket
   * (`ageBounds` in seconds, ascending), with their ages added up: what a metrics scrape reports.
   * One grouped read over the pending entries, whatever their number.
   */
  summarisePending(now: string, ageBounds: readonly number[]): Promise<PendingCallGroup[]>;
  /**
   * An app's entries changed (created or resolved) at or after `since`, oldest change first
   * (updatedAt, then id). Server-executed rows are left out: nobody waits on them.
   */
  listChangedSince(appId: string, since: string, limit: number): Promise<LedgerEntryRecord[]>;
}

export interface QueuedInputRepo {
  insert(input: QueuedInputRecord): Promise<void>;
  /** Oldest first. */
  listByConversation(conversationId: string): Promise<QueuedInputRecord[]>;
  delete(id: string): Promise<boolean>;
}

export interface ResponseRepo {
  insert(response: ResponseRecord): Promise<void>;
  get(appId: string, id: string): Promise<ResponseRecord | undefined>;
  /** The first response of the conversation whose input starts after `afterSeq` (the one that follows). */
  nextInConversation(conversationId: string, afterSeq: number): Promise<ResponseRecord | undefined>;
  /** The conversation's latest response (highest `inputFirstSeq`). */
  latestInConversation(conversationId: string): Promise<ResponseRecord | undefined>;
  countInConversation(conversationId: string): Promise<number>;
  /** Responses of the conversation still readable (`stored`). */
  countStoredInConversation(conversationId: string): Promise<number>;
  /**
   * Makes a response unreadable and not continuable (`stored` false) while its row keeps
   * delimiting its neighbours' spans of items. It no longer owns its conversation either, so the
   * sweep of `store: false` leftovers never purges a conversation because of it.
   */
  hide(appId: string, id: string): Promise<boolean>;
  delete(appId: string, id: string): Promise<boolean>;
  /**
   * `stored: false` responses that own their conversation, created before `before`, oldest first:
   * what a crash (or a connection that never closed cleanly) left to purge.
   */
  listUnstoredBefore(before: string, limit: number): Promise<ResponseRecord[]>;
}

export interface Repositories {
  apps: AppRepo;
  apiKeys: ApiKeyRepo;
  agents: AgentRepo;
  conversations: ConversationRepo;
  turns: TurnRepo;
  items: ItemRepo;
  ledger: LedgerRepo;
  serverClaims: ServerCallClaimRepo;
  idempotency: IdempotencyRepo;
  queuedInputs: QueuedInputRepo;
  responses: ResponseRepo;
  resources: ResourceRepo;
  secrets: SecretRepo;
  sessions: SessionRepo;
  webhooks: WebhookRepo;
  lifecycle: LifecycleRepo;
}

export interface Store extends Repositories {
  /** Runs `work` in one database transaction; the repositories passed in see and write inside it. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Notices between the processes on this database; ledger writes publish theirs after commit. */
  readonly signals: Signals;
  /**
   * Whether the database answers and has every migration this code needs: what a readiness probe
   * asks. Never throws; `problem` says what is wrong.
   */
  readiness(): Promise<{ ready: true } | { ready: false; problem: string }>;
  close(): Promise<void>;
}

/** Thrown by inserts that hit a unique constraint. */
export class DuplicateKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DuplicateKeyError';
  }
}
