import type { AccumulatedSeries } from './accumulated-histogram.ts';
import type { DatabaseObserver } from '../../../store/database-observer.ts';
import type { BatonMetrics } from './baton-metrics.ts';

/** The store's statement times and connection waits as Prometheus figures. */
export class DatabaseMetrics implements DatabaseObserver {
  private waiting = 0;
  // A round trip runs some 17 statements: their two series are looked up once, not per statement.
  private readonly succeeded: AccumulatedSeries;
  private readonly failed: AccumulatedSeries;
  private readonly waits: AccumulatedSeries;

  constructor(metrics: BatonMetrics) {
    metrics.connectionsWaiting = () => this.waiting;
    this.succeeded = metrics.databaseStatements.series({ outcome: 'ok' });
    this.failed = metrics.databaseStatements.series({ outcome: 'error' });
    this.waits = metrics.databaseConnectionWait.series({});
  }

  statementRan(seconds: number, failed: boolean): void {
    (failed ? this.failed : this.succeeded).observe(seconds);
  }

  connectionRequested(): void {
    this.waiting += 1;
  }

  connectionHandedOver(seconds: number, acquired: boolean): void {
    this.waiting -= 1;
    if (acquired) this.waits.observe(seconds);
  }
}
