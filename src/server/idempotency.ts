import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdempotencyHandle } from '../faces/kit/face-request.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import { findConversationIds } from '../domain/ids.ts';
import type { IdempotencyRecord } from '../domain/records.ts';
import { LEGACY_IDEMPOTENCY_LEASE_MS, type IdempotencyLease, type Store } from '../store/store.ts';

const MAX_KEY_LENGTH = 255;
/** How long a retry waits for the first attempt still running before it answers 409. */
const WAIT_FOR_FIRST_MS = 15_000;
const POLL_MS = 20;

/** `server.idempotency_lease_seconds` when the config does not say. */
export const DEFAULT_IDEMPOTENCY_LEASE_SECONDS = 30;

/**
 * A request still unsettled after this long is taken for stuck (a reply that never completes nor
 * fails): its lease is no longer renewed, so it runs out and a retry may take the key over,
 * rather than the key being refused until the process restarts.
 */
export const MAX_LEASE_RENEWAL_MS = 60 * 60_000;

export interface IdempotencySettings {
  /** How long an in-flight key stays held if its owner stops renewing it (it died). */
  readonly leaseMs: number;
  /** This process's name as a key owner; tests pin it, production makes one up. */
  readonly owner?: string;
  /** Tests shorten how long a retry waits for the first attempt. */
  readonly waitForFirstMs?: number;
}

/** What makes two requests "the same" for a key: method, URL and body. */
export function requestHash(request: Pick<FastifyRequest, 'method' | 'url' | 'body'>): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

/**
 * Refusals that wrote nothing and name a state that passes by itself: their key is freed rather
 * than bound to the refusal, so the client's retry with the same key runs once the state has
 * passed. `thread_busy`: another turn was still running (after a crash, until another replica
 * has taken it over and finished it). `previous_response_in_progress`: the same, as the
 * Responses API says it. `approval_in_progress`: another decision was running the tool (or its
 * dead process's claim was not yet recovered).
 */
export const RETRYABLE_CONFLICTS: ReadonlySet<string> = new Set([
  'thread_busy',
  'previous_response_in_progress',
  'approval_in_progress',
]);

/** One id per process: enough to tell, in the database, which process holds which key. */
function processOwner(): string {
  return `${hostname()}/${process.pid}/${randomBytes(6).toString('hex')}`;
}

/**
 * `Idempotency-Key` on any POST: the first request with a key reserves it and its response is
 * stored; a retry with the same key and body gets that response again (`Idempotent-Replayed:
 * true`) instead of running twice; the same key with another body is refused. A retry that
 * arrives while the first is still running waits for it.
 *
 * An in-flight key is held by this process under a lease (`leaseMs`, renewed every third of it
 * while the request runs, however long). If the process dies mid-request, nothing renews the
 * lease; once it ends, a retry with the same key and body takes the key over and runs the
 * request (a retry with another body is still refused). A process stalled for longer than the
 * lease may so see its request run twice; the lease is what bounds how long a crash blocks a key.
 *
 * A key lasts `server.idempotency_key_ttl_hours` (24 by default, as Stripe's do) from its first
 * request; then it is deleted (`IdempotencyExpiry`) and a request sent again with it is a new
 * request: it runs again and its response is stored anew. Retries are meant to come within
 * minutes; a client that retries later must first check whether its first attempt took effect.
 * A key also goes with the conversation its response names when that conversation is deleted.
 */
export class IdempotencyKeys {
  readonly owner: string;
  private readonly leaseMs: number;
  private readonly waitForFirstMs: number;

  constructor(
    private readonly store: Store,
    settings: IdempotencySettings,
  ) {
    this.owner = settings.owner ?? processOwner();
    this.leaseMs = settings.leaseMs;
    this.waitForFirstMs = settings.waitForFirstMs ?? WAIT_FOR_FIRST_MS;
  }

  /** Returns a handle when this request is the one to run, null when the reply was already sent. */
  async begin(
    appId: string,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<IdempotencyHandle | null | undefined> {
    const header = request.headers['idempotency-key'];
    if (header === undefined) return undefined;
    const key = Array.isArray(header) ? (header[0] ?? '') : header;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw new BatonError(
        'invalid_idempotency_key',
        `The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} characters.`,
        { param: 'Idempotency-Key' },
      );
    }
    return this.reserve(appId, key, requestHash(request), reply);
  }

  private async reserve(
    appId: string,
    key: string,
    hash: string,
    reply: FastifyReply,
  ): Promise<IdempotencyHandle | null> {
    const now = new Date();
    const reservation = await this.store.idempotency.reserve(appId, key, hash, now.toISOString(), this.lease(now));
    if (reservation.reserved) return this.hold(appId, key, reservation.takenOver);

    let existing = reservation.existing;
    if (existing.requestHash !== hash) {
      throw new BatonError(
        'idempotency_key_reused',
        `Idempotency-Key '${key}' was already used with a different request; use a new key for a new request.`,
        { param: 'Idempotency-Key' },
      );
    }
    const deadline = Date.now() + this.waitForFirstMs;
    while (existing.state !== 'done' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const current = await this.store.idempotency.get(appId, key);
      // Freed (the first attempt failed) or abandoned (its owner died): this retry runs it.
      if (!current || leaseEnded(current, new Date())) return this.reserve(appId, key, hash, reply);
      existing = current;
    }
    if (existing.state !== 'done' || existing.responseStatus === null) {
      const seconds = Math.max(1, Math.ceil((leaseEnd(existing).getTime() - Date.now()) / 1000));
      void reply.header('retry-after', String(seconds));
      throw new BatonError(
        'idempotency_key_in_use',
        `A request with Idempotency-Key '${key}' is still being processed; retry in a moment to get its response. ` +
          `If the server running it stopped, a retry may run it after its lease ends, within ${seconds} s.`,
        { param: 'Idempotency-Key' },
      );
    }
    await reply
      .code(existing.responseStatus)
      .header('content-type', 'application/json; charset=utf-8')
      .header('idempotent-replayed', 'true')
      .send(existing.responseBody ?? '');
    return null;
  }

  /** The reserved key, its lease renewed until the request settles it. */
  private hold(appId: string, key: string, takenOver: boolean): IdempotencyHandle {
    const { store, owner } = this;
    const started = Date.now();
    const renewal = setInterval(() => {
      if (Date.now() - started > MAX_LEASE_RENEWAL_MS) return clearInterval(renewal);
      store.idempotency.renew(appId, key, this.lease(new Date())).then(
        (held) => {
          // Settled meanwhile, or taken over after a stall: nothing left to renew.
          if (!held) clearInterval(renewal);
        },
        // A database hiccup: the next tick tries again, well before the lease ends.
        () => undefined,
      );
    }, this.leaseMs / 3);
    renewal.unref();
    return {
      key,
      takenOver,
      complete: async (status, body) => {
        clearInterval(renewal);
        // The conversations the response names: deleting one of them deletes the key with it.
        await store.idempotency.complete(appId, key, owner, status, body, findConversationIds(body));
      },
      release: async () => {
        clearInterval(renewal);
        await store.idempotency.release(appId, key, owner);
      },
    };
  }

  private lease(now: Date): IdempotencyLease {
    return { owner: this.owner, expiresAt: new Date(now.getTime() + this.leaseMs).toISOString() };
  }
}

/** When an in-progress key's lease ends (rows from before leases: a fixed time after creation). */
function leaseEnd(record: IdempotencyRecord): Date {
  if (record.leaseExpiresAt !== null) return new Date(record.leaseExpiresAt);
  return new Date(Date.parse(record.createdAt) + LEGACY_IDEMPOTENCY_LEASE_MS);
}

function leaseEnded(record: IdempotencyRecord, now: Date): boolean {
  return record.state === 'in_progress' && leaseEnd(record).getTime() < now.getTime();
}
