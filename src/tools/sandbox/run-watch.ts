import { shouldInterruptAfterDeadline, type InterruptHandler } from 'quickjs-emscripten';
import type { LoadedQuickJS } from './quickjs-module.ts';

/**
 * Watches one run: the wall-clock deadline and the memory limit, through QuickJS's interrupt
 * handler (called every few thousand bytecodes, also inside regexps and pending jobs).
 *
 * Why memory is watched here and not only through the error the guest sees: the guest can catch
 * QuickJS's "out of memory" in try/catch (or get `null` when even the error object could not be
 * allocated) and return as if nothing happened, and an engine that ran out of memory mid-operation
 * is not to be trusted. The module counts every time the heap needed to grow past the limit
 * (quickjs-module.ts); if that count moved during this run, the run fails with out_of_memory
 * whatever it returned. With the default limit (the module's initial 16 MiB, no growth at all)
 * that is exactly "an allocation failed"; with a larger limit Emscripten first asks for up to 20 %
 * more than it needs, so a run that came within ~20 % of the limit also counts. QuickJS's own
 * allocator limit is left off (js-sandbox.ts) so that every refusal goes through the heap; only a
 * single request above 2 GiB is refused without asking it, and nothing was allocated then.
 */

/** Time allowed after the main phase to read the guest's error details and logs. */
const GRACE_MS = 50;

export class RunWatch {
  /** The main deadline passed while guest code ran. */
  timedOut = false;
  /** The heap needed more memory than the limit during this run. */
  memoryExhausted = false;

  private deadlinePassed: InterruptHandler;
  private inGrace = false;
  private readonly refusedAtStart: number;

  constructor(
    private readonly loaded: LoadedQuickJS,
    deadline: number,
  ) {
    this.deadlinePassed = shouldInterruptAfterDeadline(deadline);
    this.refusedAtStart = loaded.refusedGrows();
  }

  /** The interrupt handler: true stops the guest with an uncatchable "interrupted" error. */
  readonly handler: InterruptHandler = (runtime) => {
    // In the grace period only its own deadline applies: reading the logs of a run that ran out
    // of memory must not be stopped for the same reason again.
    if (this.inGrace) return this.deadlinePassed(runtime) === true;
    if (this.checkMemory()) return true; // no point letting a run we will fail anyway go on
    if (!this.deadlinePassed(runtime)) return false;
    this.timedOut = true;
    return true;
  };

  /** After the main phase: a short fresh deadline for reading details; stops there are not timeouts. */
  enterGrace(): void {
    this.inGrace = true;
    this.deadlinePassed = shouldInterruptAfterDeadline(Date.now() + GRACE_MS);
  }

  /** True (and sticky) once the heap was refused growth during this run. */
  checkMemory(): boolean {
    if (!this.memoryExhausted && this.loaded.refusedGrows() > this.refusedAtStart) this.memoryExhausted = true;
    return this.memoryExhausted;
  }
}
