import { linkSignal } from '../http/signals.ts';

/**
 * Turns a run that reports events through a callback into an `AsyncIterable` for `for await`.
 * Events are buffered, so a slow consumer loses none; the run's failure is thrown from the loop.
 * Leaving the loop early (break, throw) aborts the run, so nothing keeps going unobserved.
 */
export function iterateEvents<E>(
  run: (emit: (event: E) => void, signal: AbortSignal) => Promise<unknown>,
  parent: AbortSignal | undefined,
): AsyncIterable<E> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<E> {
      const link = linkSignal(parent);
      const buffer: E[] = [];
      let finished = false;
      let failure: { error: unknown } | null = null;
      let wake: (() => void) | null = null;
      const notify = (): void => {
        wake?.();
        wake = null;
      };
      run((event) => {
        buffer.push(event);
        notify();
      }, link.signal).then(
        () => {
          finished = true;
          notify();
        },
        (error: unknown) => {
          finished = true;
          failure = { error };
          notify();
        },
      );
      const stop = (): void => {
        if (!finished) link.abort(new DOMException('The event stream was closed by its reader.', 'AbortError'));
        link.dispose();
      };
      return {
        async next(): Promise<IteratorResult<E>> {
          for (;;) {
            const event = buffer.shift();
            if (event !== undefined) return { value: event, done: false };
            if (failure) {
              link.dispose();
              throw failure.error;
            }
            if (finished) {
              link.dispose();
              return { value: undefined, done: true };
            }
            await new Promise<void>((resolve) => (wake = resolve));
          }
        },
        async return(): Promise<IteratorResult<E>> {
          stop();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
