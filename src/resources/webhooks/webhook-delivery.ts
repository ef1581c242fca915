import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { newId } from '../../domain/ids.ts';
import type { JsonObject } from '../../domain/json.ts';
import type { WebhookDeliveryRecord, WebhookEndpointRecord, WebhookEventRecord } from '../../domain/webhooks.ts';
import type { Repositories, Store } from '../../store/store.ts';
import type { EgressPolicy } from '../../tools/http/address-policy.ts';
import { sharedGuardedAgents } from '../../tools/http/guarded-agent.ts';
import { readCapped } from '../../tools/http/safe-fetch.ts';
import type { ServerKeys } from '../keys/server-keys.ts';
import { openWebhookSecret } from './webhook-secrets.ts';
import {
  DEFAULT_WEBHOOK_SETTINGS,
  MAX_RESPONSE_BYTES,
  RESPONSE_EXCERPT_CHARS,
  RETRY_JITTER,
  type WebhookSettings,
} from './webhook-settings.ts';

/** Events turned into deliveries per transaction. */
const FAN_OUT_BATCH = 200;

export interface WebhookDeliveryOptions {
  store: Store;
  keys: Pick<ServerKeys, 'secrets'>;
  egress: EgressPolicy;
  settings?: Partial<WebhookSettings>;
  logger: { warn(details: object, message: string): void };
}

/** What one attempt got back. */
interface AttemptResult {
  ok: boolean;
  status: number | null;
  excerpt: string | null;
}

/**
 * The delivery worker, one per process. Each pass it turns new outbox events into deliveries
 * (one per matching enabled endpoint), claims due deliveries (SKIP LOCKED on PostgreSQL, so
 * replicas never send the same one at once; a claim lapses after twice the timeout, so a dead
 * replica's deliveries are sent again), and sends them signed, without awaiting one endpoint
 * before another: at most `maxPerEndpoint` in flight to one endpoint and `maxConcurrent` in all,
 * deliveries of one conversation to one endpoint one after the other, in event order.
 */
export class WebhookDelivery {
  readonly settings: WebhookSettings;
  private timer: NodeJS.Timeout | null = null;
  private passing: Promise<void> | null = null;
  private again = false;
  private readonly inFlight = new Map<string, number>();
  private total = 0;
  /** Per endpoint and conversation, the last send queued: the next one waits for it. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly sends = new Set<Promise<void>>();
  private unsubscribe: (() => void) | null = null;
  private stopped = false;
  /** Whether the last pass fanned out and claimed nothing, with no send in flight. */
  private lastPassIdle = false;
  /**
   * Whether a tick found no app with an enabled endpoint and no delivery pending. Deliveries become
   * pending only by an event's fan-out or a resend, and both publish `webhook-events` (on every
   * replica), which clears it: until then the timer's ticks read nothing.
   */
  private nonePending = false;
  /** Aborts the sends in flight when the process closes without draining. */
  private cut = new AbortController();

  constructor(private readonly options: WebhookDeliveryOptions) {
    this.settings = { ...DEFAULT_WEBHOOK_SETTINGS, ...options.settings };
  }

  start(): void {
    this.stopped = false;
    this.cut = new AbortController();
    this.timer = setInterval(() => this.tick(), this.settings.pollIntervalMs);
    this.timer.unref();
    // Events just committed (by any replica on PostgreSQL): look at once instead of at the next
    // tick. Only outbox writes notify, so changes of apps without endpoints never wake it.
    this.unsubscribe = this.options.store.signals.subscribe('webhook-events', () => {
      this.nonePending = false;
      this.wake();
    });
    this.wake();
  }

  /**
   * Stops claiming. Sends in flight finish (each bounded by the timeout), or with `abort` are cut:
   * their claims lapse and another pass (here after a restart, or on another replica) sends them.
   */
  async stop(abort = false): Promise<void> {
    this.stopped = true;
    if (abort) this.cut.abort();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.passing;
    await Promise.allSettled([...this.sends]);
  }

  /** Runs a pass now (or right after the one running). */
  wake(): void {
    if (this.stopped) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    this.passing = this.pass()
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'webhook delivery pass failed'))
      .finally(() => {
        this.passing = null;
        if (this.again && !this.stopped) {
          this.again = false;
          this.wake();
        }
      });
  }

  /**
   * The timer's pass, for retries falling due and claims lapsing: skipped while no app has an
   * enabled endpoint, no delivery is pending (a disabled endpoint's retries still end, as failed)
   * and the last pass found nothing, so a server without webhooks runs no transaction for them
   * (new events and resends wake the worker by their notice), and once a tick found nothing
   * pending, no statement either (`nonePending`).
   */
  private tick(): void {
    if (!this.lastPassIdle) {
      // Work went on since: a retry may fall due later, so the next idle tick looks again.
      this.nonePending = false;
      return this.wake();
    }
    const webhooks = this.options.store.webhooks;
    webhooks
      .appsWithEndpoints()
      .then(async (apps) => {
        if (apps.length > 0) return this.wake();
        if (this.nonePending) return;
        if (await webhooks.hasPendingDeliveries()) this.wake();
        else this.nonePending = true;
      })
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'webhook delivery tick failed'));
  }

  /** One pass: fan out, claim, send (not awaited). Tests call it and wait with `idle()`. */
  async pass(): Promise<void> {
    let fanned = 0;
    let batch: number;
    do {
      batch = await this.fanOut();
      fanned += batch;
    } while (batch === FAN_OUT_BATCH);
    const claimed = await this.claimAndSend();
    this.lastPassIdle = fanned === 0 && claimed === 0 && this.sends.size === 0;
  }

  /** Resolves when no send is in flight. */
  async idle(): Promise<void> {
    while (this.sends.size > 0) await Promise.allSettled([...this.sends]);
  }

  private async fanOut(): Promise<number> {
    const now = new Date().toISOString();
    return this.options.store.transaction(async (tx) => {
      const events = await tx.webhooks.claimUnfannedEvents(FAN_OUT_BATCH);
      if (events.length === 0) return 0;
      const endpointsByApp = new Map<string, WebhookEndpointRecord[]>();
      const deliveries: WebhookDeliveryRecord[] = [];
      for (const event of events) {
        let endpoints = endpointsByApp.get(event.appId);
        if (!endpoints) {
          endpoints = (await tx.webhooks.listEndpoints(event.appId)).filter((endpoint) => endpoint.enabled);
          endpointsByApp.set(event.appId, endpoints);
        }
        for (const endpoint of endpoints.filter((candidate) => matches(candidate, event)))
          deliveries.push(newDelivery(endpoint, event, now));
      }
      await tx.webhooks.insertDeliveries(deliveries);
      await tx.webhooks.markFannedOut(events.map((event) => event.seq));
      return events.length;
    });
  }

  /** Claims due deliveries and schedules their sends; how many it claimed. */
  private async claimAndSend(): Promise<number> {
    const free = this.settings.maxConcurrent - this.total;
    if (free <= 0) return 0;
    const now = Date.now();
    const full = [...this.inFlight].filter(([, count]) => count >= this.settings.maxPerEndpoint).map(([id]) => id);
    const claimed = await this.options.store.transaction((tx) =>
      tx.webhooks.claimDeliveries({
        now: new Date(now).toISOString(),
        leaseUntil: new Date(now + this.claimLeaseMs()).toISOString(),
        limit: free,
        skipEndpoints: full,
        newToken: () => newId('claim'),
      }),
    );
    if (claimed.length === 0) return 0;
    const events = new Map(
      (await this.options.store.webhooks.getEvents([...new Set(claimed.map((delivery) => delivery.eventId))])).map(
        (event) => [event.id, event],
      ),
    );
    for (const delivery of claimed) this.schedule(delivery, events.get(delivery.eventId));
    return claimed.length;
  }

  /** A claim outlives an attempt that timed out, with room to record it. */
  private claimLeaseMs(): number {
    return this.settings.timeoutMs * 2 + 5_000;
  }

  private schedule(delivery: WebhookDeliveryRecord, event: WebhookEventRecord | undefined): void {
    this.inFlight.set(delivery.endpointId, (this.inFlight.get(delivery.endpointId) ?? 0) + 1);
    this.total += 1;
    const key = `${delivery.endpointId}|${delivery.conversationId ?? delivery.id}`;
    const previous = this.chains.get(key) ?? Promise.resolve();
    const send: Promise<void> = previous
      .then(() => this.deliver(delivery, event))
      .catch((error: unknown) =>
        this.options.logger.warn({ err: error, delivery: delivery.id }, 'webhook delivery failed'),
      )
      .finally(() => {
        this.sends.delete(send);
        if (this.chains.get(key) === send) this.chains.delete(key);
        const left = (this.inFlight.get(delivery.endpointId) ?? 1) - 1;
        if (left <= 0) this.inFlight.delete(delivery.endpointId);
        else this.inFlight.set(delivery.endpointId, left);
        this.total -= 1;
        // A slot is free: due deliveries need not wait for the next tick.
        this.wake();
      });
    this.chains.set(key, send);
    this.sends.add(send);
  }

  private async deliver(delivery: WebhookDeliveryRecord, event: WebhookEventRecord | undefined): Promise<void> {
    const token = delivery.claimToken ?? '';
    const store = this.options.store;
    const endpoint = await store.webhooks.getEndpoint(delivery.appId, delivery.endpointId);
    const startedAt = new Date().toISOString();
    if (!endpoint || !endpoint.enabled || !event) {
      const why = !event ? 'its event no longer exists' : 'the endpoint is disabled';
      await store.webhooks.finishDelivery(delivery.id, token, {
        status: 'failed',
        nextAttemptAt: null,
        lastAttemptAt: startedAt,
        lastResponseCode: null,
        lastError: `not sent: ${why}`,
        updatedAt: startedAt,
      });
      return;
    }
    const result = await this.attempt(endpoint, event);
    if (this.cut.signal.aborted) return; // cut by a close: the claim lapses and it is sent again
    const finishedAt = new Date();
    const finished = finishedAt.toISOString();
    if (result.ok) {
      await store.webhooks.finishDelivery(delivery.id, token, {
        status: 'succeeded',
        nextAttemptAt: null,
        lastAttemptAt: finished,
        lastResponseCode: result.status,
        lastError: null,
        updatedAt: finished,
      });
      if (endpoint.failingSince !== null)
        await store.webhooks.updateEndpoint(endpoint.appId, endpoint.id, { failingSince: null, updatedAt: finished });
      return;
    }
    const wait = this.settings.retryScheduleMs[delivery.attempts - 1];
    const retryAt = wait === undefined ? null : new Date(finishedAt.getTime() + jittered(wait)).toISOString();
    await store.webhooks.finishDelivery(delivery.id, token, {
      status: retryAt === null ? 'failed' : 'pending',
      nextAttemptAt: retryAt,
      lastAttemptAt: finished,
      lastResponseCode: result.status,
      lastError: result.excerpt,
      updatedAt: finished,
    });
    await this.noteFailure(endpoint, finishedAt);
  }

  /** An endpoint failing for longer than `disableAfterMs` is disabled, and the app's other endpoints told. */
  private async noteFailure(endpoint: WebhookEndpointRecord, at: Date): Promise<void> {
    const store = this.options.store;
    const now = at.toISOString();
    if (endpoint.failingSince === null) {
      await store.webhooks.updateEndpoint(endpoint.appId, endpoint.id, { failingSince: now, updatedAt: now });
      return;
    }
    if (at.getTime() - Date.parse(endpoint.failingSince) < this.settings.disableAfterMs) return;
    const reason = `every delivery failed since ${endpoint.failingSince} (more than ${spanOf(this.settings.disableAfterMs)})`;
    await store.transaction(async (tx: Repositories) => {
      const disabled = await tx.webhooks.updateEndpoint(endpoint.appId, endpoint.id, {
        enabled: false,
        disabledReason: reason,
        updatedAt: now,
      });
      if (!disabled) return;
      await tx.webhooks.insertEvents([
        {
          id: newId('evt'),
          appId: endpoint.appId,
          type: 'endpoint.disabled',
          conversationId: null,
          agentName: null,
          toolName: null,
          data: {
            object: 'webhook_endpoint',
            id: endpoint.id,
            url: endpoint.url,
            enabled: false,
            failing_since: endpoint.failingSince,
            disabled_reason: reason,
            links: { webhook_endpoint: `/v1/webhook-endpoints/${endpoint.id}` },
          },
          createdAt: now,
        },
      ]);
    });
    // The transaction's endpoint write went through the transaction's repositories: tell every process.
    store.signals.publish('webhooks', endpoint.appId);
    this.options.logger.warn({ endpoint: endpoint.id, app_id: endpoint.appId }, `webhook endpoint disabled: ${reason}`);
  }

  private async attempt(endpoint: WebhookEndpointRecord, event: WebhookEventRecord): Promise<AttemptResult> {
    const body = JSON.stringify(payloadOf(event, endpoint.includeArguments));
    const timestamp = new Date();
    let signature: string;
    try {
      signature = this.secretsOf(endpoint, timestamp)
        .map((secret) => new Webhook(secret).sign(event.id, timestamp, body))
        .join(' ');
    } catch (error) {
      return { ok: false, status: null, excerpt: excerpt(error instanceof Error ? error.message : String(error)) };
    }
    const deadline = AbortSignal.timeout(this.settings.timeoutMs);
    try {
      const response = await request(endpoint.url, {
        dispatcher: sharedGuardedAgents.get(this.options.egress),
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Baton-Webhooks/1',
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
        // undici's request never follows a redirect: a 3xx is an answer like any other non-2xx.
        signal: AbortSignal.any([deadline, this.cut.signal]),
      });
      const read = await readCapped(response.body, MAX_RESPONSE_BYTES).catch(() => ({ body: Buffer.alloc(0) }));
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return { ok, status: response.statusCode, excerpt: ok ? null : excerpt(read.body.toString('utf8')) };
    } catch (error) {
      if (deadline.aborted)
        return { ok: false, status: null, excerpt: `no answer within ${this.settings.timeoutMs} ms (timeout)` };
      return { ok: false, status: null, excerpt: excerpt(error instanceof Error ? error.message : String(error)) };
    }
  }

  /** The current secret, and the one a rotation replaced while its grace lasts. */
  private secretsOf(endpoint: WebhookEndpointRecord, at: Date): string[] {
    const secrets = [openWebhookSecret(this.options.keys, endpoint.appId, endpoint.id, endpoint.secretCiphertext)];
    if (
      endpoint.previousSecretCiphertext !== null &&
      endpoint.previousSecretExpiresAt !== null &&
      Date.parse(endpoint.previousSecretExpiresAt) > at.getTime()
    )
      secrets.push(
        openWebhookSecret(this.options.keys, endpoint.appId, endpoint.id, endpoint.previousSecretCiphertext),
      );
    return secrets;
  }
}

/** Whether `endpoint` wants `event`: its type, agent and tool filters. */
export function matches(endpoint: WebhookEndpointRecord, event: WebhookEventRecord): boolean {
  if (!endpoint.eventTypes.includes('*') && !endpoint.eventTypes.includes(event.type)) return false;
  if (endpoint.agents && event.agentName !== null && !endpoint.agents.includes(event.agentName)) return false;
  if (endpoint.tools && event.toolName !== null && !endpoint.tools.includes(event.toolName)) return false;
  return true;
}

function newDelivery(endpoint: WebhookEndpointRecord, event: WebhookEventRecord, now: string): WebhookDeliveryRecord {
  return {
    id: newId('whdl'),
    appId: endpoint.appId,
    endpointId: endpoint.id,
    eventId: event.id,
    eventSeq: event.seq,
    eventType: event.type,
    conversationId: event.conversationId,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    claimToken: null,
    lastAttemptAt: null,
    lastResponseCode: null,
    lastError: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The body sent: Standard Webhooks' `{type, timestamp, data}`, with Baton's event id and sequence. */
export function payloadOf(event: WebhookEventRecord, includeArguments: boolean): JsonObject {
  const { arguments: args, ...rest } = event.data;
  const data = includeArguments && args !== undefined ? { ...rest, arguments: args } : rest;
  return { id: event.id, type: event.type, timestamp: event.createdAt, sequence: event.seq, data };
}

/** `5 d`, `36 h`, `250 ms`: the largest unit that states the span exactly. */
function spanOf(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1_000, 's'],
  ];
  const unit = units.find(([size]) => ms % size === 0);
  return unit ? `${ms / unit[0]} ${unit[1]}` : `${ms} ms`;
}

function jittered(ms: number): number {
  return Math.round(ms * (1 - RETRY_JITTER + Math.random() * 2 * RETRY_JITTER));
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > RESPONSE_EXCERPT_CHARS ? `${flat.slice(0, RESPONSE_EXCERPT_CHARS)}…` : flat;
}
