import { abortError } from '../errors.ts';

/**
 * Small AbortSignal helpers. `AbortSignal.any` is recent (Node 20.3, Safari 17.4), so linking is
 * done by hand; every listener is removed again so long-lived parent signals do not leak.
 */

export interface LinkedSignal {
  signal: AbortSignal;
  /** Aborts the child with a reason (a timeout, the end of a handler). */
  abort(reason?: unknown): void;
  /** Detaches from the parent; call when the work is over. */
  dispose(): void;
}

/** A child signal that aborts when `parent` does (or when told to), never the other way round. */
export function linkSignal(parent: AbortSignal | undefined): LinkedSignal {
  const controller = new AbortController();
  if (!parent) return { signal: controller.signal, abort: (reason) => controller.abort(reason), dispose: () => {} };
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, abort: () => {}, dispose: () => {} };
  }
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose: () => parent.removeEventListener('abort', onAbort),
  };
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Rejects with the abort error once `signal` aborts; never resolves. For races. */
export function whenAborted(signal: AbortSignal): { promise: Promise<never>; dispose(): void } {
  let onAbort = (): void => {};
  const promise = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(abortError(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  // A race that settled otherwise must not leave an unhandled rejection behind.
  promise.catch(() => {});
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}
