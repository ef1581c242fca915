import { BatonError } from '../../domain/errors/baton-error.ts';
import { etagMatches } from './etag.ts';

/** What every resource write checks and stamps: the caller's etag, a lost compare-and-set, the time. */

/** AIP-154: a given etag that no longer matches is ABORTED; none (or '') lets the write win. */
export function assertFreshEtag(given: string | undefined, current: string, name: string, field: string): void {
  if (etagMatches(given, current)) return;
  throw new BatonError(
    'etag_mismatch',
    `'${name}' changed since you read it (etag ${current}, yours ${given}); read it again and reapply your change.`,
    {
      param: field,
    },
  );
}

/** A compare-and-set lost to a concurrent writer: the same status as a stale etag. */
export function concurrentUpdate(name: string): BatonError {
  return new BatonError(
    'concurrent_update',
    `'${name}' was changed by another request at the same time; read it again and retry.`,
  );
}

export function nowIso(): string {
  return new Date().toISOString();
}
