import type { IdempotencyRecord } from '../domain/records.ts';

/** The store's side of `Idempotency-Key` (src/server/idempotency.ts): reservations under leases, stored responses. */

/** Who runs an in-flight request and until when, unless renewed, that holds. */
export interface IdempotencyLease {
  /** The server process running the request (one id per process). */
  owner: string;
  /** ISO time after which the key may be taken over by a retry of the same request. */
  expiresAt: string;
}

export type IdempotencyReservation =
  /** `takenOver`: the key was in progress under an owner whose lease had run out. */
  { reserved: true; takenOver: boolean } | { reserved: false; existing: IdempotencyRecord };

export interface IdempotencyRepo {
  /**
   * Inserts an `in_progress` row held under `lease`. If (appId, key) exists, it is taken over
   * when it is still in progress for the same `requestHash` and its lease ended before `now`
   * (its owner died mid-request); otherwise it is returned. A row without a lease (written before
   * leases existed) counts as leased for {@link LEGACY_IDEMPOTENCY_LEASE_MS} from its creation.
   */
  reserve(
    appId: string,
    key: string,
    requestHash: string,
    now: string,
    lease: IdempotencyLease,
  ): Promise<IdempotencyReservation>;
  /** Extends the lease of an in-progress key `lease.owner` holds; false when it no longer holds it. */
  renew(appId: string, key: string, lease: IdempotencyLease): Promise<boolean>;
  /**
   * Stores the response of an in-progress key `owner` holds; false (nothing stored) when another
   * process took the key over meanwhile, whose own outcome is the one kept. `conversationIds`, the
   * conversations the response names (`findConversationIds`), are linked to the key in the same
   * transaction, so deleting one of them removes the key without reading any response.
   */
  complete(
    appId: string,
    key: string,
    owner: string,
    responseStatus: number,
    responseBody: string,
    conversationIds?: readonly string[],
  ): Promise<boolean>;
  /** Drops an `in_progress` reservation `owner` holds (the request failed on our side and may be retried). */
  release(appId: string, key: string, owner: string): Promise<void>;
  get(appId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Deletes at most `limit` keys (of any app) created before `before`, oldest first, with their
   * conversation links: done ones, and in-progress ones whose lease ended before `now` (or that
   * have none, from before leases: theirs ended a minute after creation). A key whose request
   * still runs is kept. Returns how many keys went.
   */
  deleteExpired(before: string, limit: number, now: string): Promise<number>;
}

/** How long an in-progress row without a lease (from before leases) is held from its `created_at`. */
export const LEGACY_IDEMPOTENCY_LEASE_MS = 60_000;
