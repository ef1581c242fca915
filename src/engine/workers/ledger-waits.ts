import type { Signals } from '../../store/signals.ts';

/**
 * Waits, for a long-polling claim, until the app's ledger changes (a notice), `ms` pass, or
 * `stop` fires. Notices reach this process for every change on SQLite and, by LISTEN/NOTIFY, for
 * every replica's on PostgreSQL; `fallbackMs` bounds the wait anyway, for what no notice tells (a
 * lease lapsing, a process on the same SQLite file).
 */
export function waitForLedgerChange(
  signals: Signals,
  appId: string,
  ms: number,
  fallbackMs: number,
  stop: { onStop(listener: () => void): () => void },
): Promise<void> {
  return new Promise((resolve) => {
    let unsubscribe = (): void => {};
    let forgetStop = (): void => {};
    const done = (): void => {
      clearTimeout(timer);
      unsubscribe();
      forgetStop();
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, Math.min(ms, fallbackMs)));
    unsubscribe = signals.subscribe('ledger', (key) => {
      if (key === appId || key === '*') done();
    });
    forgetStop = stop.onStop(done);
  });
}
