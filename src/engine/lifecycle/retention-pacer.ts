import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a retention run works before it lets the event loop serve other callbacks, ms. */
export const RETENTION_SLICE_MS = 5;
/**
 * The share of a busy event loop a retention run takes; a quiet one it uses in full. Its cost to
 * requests is about three times its share of the loop's time: a deleted conversation appends about
 * 34 pages to the WAL (its rows in a dozen indexes keyed by random ids), which the requests' commits
 * then checkpoint, and which push their pages out of SQLite's cache (bench/README.md, "Retention").
 */
export const RETENTION_BUSY_SHARE = 0.04;
/** A wait in which other callbacks ran less than this fraction of it found the loop quiet. */
const QUIET_FRACTION = 0.1;
/** The waits between checks grow from 1 ms to this, ms: a busy loop is not woken every millisecond. */
const MAX_WAIT_MS = 16;

/**
 * Paces a retention run beside the requests of its process. On SQLite every statement runs
 * synchronously and the deletions chain on promises alone, so without a macrotask yield a run holds
 * the event loop until it yields: a batch of 100 conversations held it 100–300 ms, and round trips
 * at 10 clients fell to a quarter while the run lasted (bench/README.md, "Retention").
 *
 * `pace()` is called after each unit of work (a conversation deleted, a batch of tool data
 * blanked). Past a slice of `RETENTION_SLICE_MS` it waits (1 ms, then longer) until either a wait
 * passed with next to nothing else to do (the loop is quiet: retention goes on at full speed), or
 * other work had `(1 − share) / share` times the slice (a busy loop: requests keep about 96 % of it).
 * Busy and quiet are the loop's own accounts (`performance.eventLoopUtilization`), so time the
 * process spends descheduled on a loaded machine does not read as requests, and the short gaps
 * between one client's requests do not read as quiet. Wall time, not the engine's clock: pacing is
 * about this process's event loop.
 */
export class RetentionPacer {
  private sliceStart = performance.now();

  async pace(): Promise<void> {
    const ran = performance.now() - this.sliceStart;
    if (ran < RETENTION_SLICE_MS) return;
    const owed = (ran * (1 - RETENTION_BUSY_SHARE)) / RETENTION_BUSY_SHARE;
    const since = performance.eventLoopUtilization();
    for (let wait = 1; ; wait = Math.min(wait * 2, MAX_WAIT_MS)) {
      const step = performance.eventLoopUtilization();
      await sleep(wait);
      const { active, idle } = performance.eventLoopUtilization(step);
      if (active < QUIET_FRACTION * (active + idle)) break;
      if (performance.eventLoopUtilization(since).active >= owed) break;
    }
    this.sliceStart = performance.now();
  }
}
