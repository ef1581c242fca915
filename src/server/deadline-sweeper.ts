import type { Engine } from '../engine/index.ts';
import type { EngineLogger } from '../engine/index.ts';

/**
 * Applies call deadlines and recovers orphaned turns on a timer. Each pass is idempotent and safe
 * to run in several processes at once: every change it makes is a conditional update. Still,
 * only the process that holds the cluster-wide lead sweeps (`lead`), so N replicas do not run N
 * identical passes; when it dies, another takes the lead on its next tick.
 */
export class DeadlineSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly engine: Engine,
    private readonly intervalMs: number,
    private readonly logger: EngineLogger,
    /** Faces' own clean-up (e.g. abandoned `store: false` responses), run after the engine's. */
    private readonly chores: readonly (() => Promise<unknown>)[] = [],
    /** Whether this process leads the sweeps now (see `Signals.lead`). */
    private readonly lead: () => Promise<boolean> = async () => true,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
    // The sweeper must not keep the process alive on its own.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async sweep(): Promise<void> {
    if (this.running) return; // a slow pass is not stacked on by the next tick
    this.running = true;
    try {
      if (!(await this.lead())) return;
      await this.engine.applyDueDeadlines();
      await this.engine.applyLapsedLeases();
      await this.engine.recoverStaleTurns();
      await this.engine.recoverStaleClaims();
      await this.engine.resumeStrandedTurns();
      // Retention runs in the background, at most every RETENTION_INTERVAL_MS, so deadlines never wait for it.
      this.engine.lifecycle.startRetentionWhenDue();
      // Beside it, deleted apps whose purge a dead process or a failure left unfinished.
      this.engine.lifecycle.startPurgesWhenDue();
      for (const chore of this.chores) await chore();
    } catch (error) {
      this.logger.error({ err: error }, 'deadline sweep failed');
    } finally {
      this.running = false;
    }
  }
}
