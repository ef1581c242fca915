import type { Page, PageRequest } from '../domain/page.ts';
import type {
  NewWebhookEvent,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookEventRecord,
} from '../domain/webhooks.ts';

/** What a delivery attempt left: the delivery's new status and when to try again. */
export interface WebhookDeliveryOutcome {
  status: WebhookDeliveryRecord['status'];
  nextAttemptAt: string | null;
  lastAttemptAt: string;
  lastResponseCode: number | null;
  lastError: string | null;
  updatedAt: string;
}

/** Webhook endpoints, the outbox and its deliveries (docs in src/domain/webhooks.ts). */
export interface WebhookRepo {
  /** Throws `DuplicateKeyError` when the id is taken. */
  insertEndpoint(record: WebhookEndpointRecord): Promise<void>;
  getEndpoint(appId: string, id: string): Promise<WebhookEndpointRecord | undefined>;
  /** Oldest first. */
  listEndpoints(appId: string): Promise<WebhookEndpointRecord[]>;
  /** Writes the fields of `patch`; undefined when the endpoint is not in this app. */
  updateEndpoint(
    appId: string,
    id: string,
    patch: Partial<Omit<WebhookEndpointRecord, 'id' | 'appId' | 'createdAt'>> & { updatedAt: string },
  ): Promise<WebhookEndpointRecord | undefined>;
  /** Deletes the endpoint and its deliveries. */
  deleteEndpoint(appId: string, id: string): Promise<boolean>;
  /** The apps with at least one enabled endpoint: the ones whose changes write events. */
  appsWithEndpoints(): Promise<string[]>;
  /** Whether any delivery is still pending (due now or later), whatever its endpoint's state. */
  hasPendingDeliveries(): Promise<boolean>;
  insertEvents(events: NewWebhookEvent[]): Promise<void>;
  /**
   * Events no delivery was written for yet, oldest first. Run it in a transaction: on PostgreSQL
   * they are locked with SKIP LOCKED, so replicas fanning out at once take different events.
   */
  claimUnfannedEvents(limit: number): Promise<WebhookEventRecord[]>;
  markFannedOut(seqs: readonly number[]): Promise<void>;
  getEvents(ids: readonly string[]): Promise<WebhookEventRecord[]>;
  insertDeliveries(deliveries: WebhookDeliveryRecord[]): Promise<void>;
  /**
   * Claims at most `limit` pending deliveries due at `now`, oldest event first, none of
   * `skipEndpoints`: each gets a new token, an attempt, and `next_attempt_at` = `leaseUntil`, when
   * the claim lapses if its replica dies. SKIP LOCKED on PostgreSQL (run it in a transaction).
   */
  claimDeliveries(claim: {
    now: string;
    leaseUntil: string;
    limit: number;
    skipEndpoints: readonly string[];
    newToken: () => string;
  }): Promise<WebhookDeliveryRecord[]>;
  /** Records an attempt's outcome if the claim `token` still holds; false otherwise. */
  finishDelivery(id: string, token: string, outcome: WebhookDeliveryOutcome): Promise<boolean>;
  getDelivery(appId: string, endpointId: string, id: string): Promise<WebhookDeliveryRecord | undefined>;
  /** Newest event first. */
  listDeliveries(appId: string, endpointId: string, page: PageRequest): Promise<Page<WebhookDeliveryRecord>>;
  /** Sends a delivery again from the start of the schedule (a resend by hand). */
  resendDelivery(
    appId: string,
    endpointId: string,
    id: string,
    now: string,
  ): Promise<WebhookDeliveryRecord | undefined>;
}
