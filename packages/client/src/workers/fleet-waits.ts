/**
 * Waits of the fleet's loop that end early when it stops. Unlike `sleep`, they resolve rather
 * than reject on abort: stopping is the loop's normal way out, not an error. Each wait removes
 * its listener, so a fleet running for weeks does not pile listeners onto its signal.
 */

/** Waits `ms`, or less if `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return untilAny([], signal, ms);
}

/** Waits until one of `promises` settles or `signal` aborts (or `ms` passes, if given). */
export function untilAny(
  promises: Iterable<Promise<unknown>>,
  signal: AbortSignal,
  ms: number = Number.POSITIVE_INFINITY,
): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    signal.addEventListener('abort', done, { once: true });
    for (const promise of promises) promise.then(done, done);
  });
}
