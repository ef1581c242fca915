import type { QuickJSContext, QuickJSRuntime } from 'quickjs-emscripten';
import type { JsonValue } from '../../domain/records.ts';
import { engineFailure, type FailureContext } from './guest-failure.ts';
import { isGuestIdentifier } from './guest-identifier.ts';
import { GuestRun } from './guest-run.ts';
import {
  acquireQuickJS,
  discardQuickJS,
  quickJSModuleCounters,
  wasmMemoryBytesFor,
  type LoadedQuickJS,
} from './quickjs-module.ts';
import { RunWatch } from './run-watch.ts';
import { SandboxError } from './sandbox-error.ts';
import { resolveSandboxLimits, type ResolvedSandboxLimits, type SandboxLimits } from './sandbox-limits.ts';

/**
 * Runs one function of untrusted JavaScript in QuickJS (WASM), JSON in and JSON out.
 *
 * Every call gets a fresh QuickJS runtime and context, disposed when the call ends, whatever the
 * outcome: nothing a call does (globals, prototypes, leaked state after an error) reaches the next.
 * The guest sees only ECMAScript built-ins plus a capturing console (guest-prelude.ts): no host
 * functions, so no fetch, require, process, timers, file system or module loader. Limits: a
 * wall-clock deadline and memory (run-watch.ts), QuickJS's stack limit, an output size cap.
 *
 * Between creating the runtime and disposing it the work is synchronous, so calls never interleave
 * inside the shared WASM module, and the thread that runs it is blocked for the whole call. The
 * deadline is checked by QuickJS's interrupt handler, which some built-ins never reach (a sparse
 * `Array(2 ** 32 - 1).indexOf(1)` loops in C for minutes), so a deadline alone does not bound the
 * block. The server therefore never calls this on its event loop: tools and fakes run in a pool of
 * worker threads (sandbox-pool.ts) that terminates a worker whose call overstays its deadline.
 * `callInSandbox` runs in the calling thread: in such a worker, in tests, in tools.
 */

export interface SandboxCall {
  /** A plain script (not a module) that declares the function. */
  readonly code: string;
  /** Candidate function names, in order of preference; each must be a plain identifier. */
  readonly functionNames: readonly string[];
  /** JSON-serialisable arguments; `undefined` is passed as undefined. */
  readonly args: readonly unknown[];
  /** Names the code's owner in error messages, e.g. `jsFunction get_weather`. */
  readonly label: string;
  /** The file name guest stack traces and syntax errors show. */
  readonly filename?: string;
  readonly missingHint?: string;
  readonly limits?: SandboxLimits;
}

export interface SandboxResult {
  /** The function that was called (the first of `functionNames` the code defines). */
  readonly functionName: string;
  /** The result as parsed JSON; undefined when the guest returned undefined. */
  readonly value: JsonValue | undefined;
  /** What the guest wrote with console.*, bounded. */
  readonly logs: readonly string[];
}

const stats = { runtimesCreated: 0, runtimesDisposed: 0, runtimesAbandoned: 0 };

/** Debug counters: after every call, created = disposed + abandoned (abandoned with their module). */
export function jsSandboxStats(): {
  runtimesCreated: number;
  runtimesDisposed: number;
  runtimesAbandoned: number;
  moduleLoads: number;
  moduleDiscards: number;
} {
  const modules = quickJSModuleCounters();
  return { ...stats, moduleLoads: modules.loads, moduleDiscards: modules.discards };
}

/** Loads the WASM module ahead of the first call (optional; the first call loads it otherwise). */
export async function preloadJsSandbox(limits?: SandboxLimits): Promise<void> {
  await acquireQuickJS(wasmMemoryBytesFor(resolveSandboxLimits(limits).memoryLimitBytes));
}

/**
 * A call checked and encoded, ready to run in any thread: plain data (structured-clone safe), so
 * the pool can send it to a worker. Preparing throws TypeError / RangeError for the caller's own
 * mistakes (a name that is no identifier, arguments with no JSON form, limits out of bounds).
 */
export interface PreparedSandboxCall {
  readonly code: string;
  readonly functionNames: readonly string[];
  /** Each argument as JSON text, or undefined for `undefined`. */
  readonly argTexts: readonly (string | undefined)[];
  readonly label: string;
  readonly filename: string;
  readonly missingHint: string | undefined;
  readonly limits: ResolvedSandboxLimits;
}

export function prepareSandboxCall(call: SandboxCall): PreparedSandboxCall {
  const limits = resolveSandboxLimits(call.limits);
  if (call.functionNames.length === 0) throw new TypeError('callInSandbox needs at least one function name');
  for (const name of call.functionNames) {
    if (!isGuestIdentifier(name)) throw new TypeError(`not a plain JavaScript identifier: ${JSON.stringify(name)}`);
  }
  return {
    code: call.code,
    functionNames: [...call.functionNames],
    argTexts: call.args.map((arg, index) => encodeArgument(arg, index, call.label)),
    label: call.label,
    filename: call.filename ?? 'tool.js',
    missingHint: call.missingHint,
    limits,
  };
}

/** Calls the first defined function of `functionNames` with `args`, in this thread; throws SandboxError on failure. */
export async function callInSandbox(call: SandboxCall): Promise<SandboxResult> {
  return runPreparedCall(prepareSandboxCall(call));
}

/** Runs a prepared call in this thread; its deadline starts once the WASM module is loaded. */
export async function runPreparedCall(call: PreparedSandboxCall): Promise<SandboxResult> {
  const loaded = await acquireQuickJS(wasmMemoryBytesFor(call.limits.memoryLimitBytes));
  return runOnce(loaded, call);
}

function runOnce(loaded: LoadedQuickJS, call: PreparedSandboxCall): SandboxResult {
  const { limits } = call;
  let runtime: QuickJSRuntime | undefined;
  let context: QuickJSContext | undefined;
  let watch: RunWatch | undefined;
  let run: GuestRun | undefined;
  let engineBroken = false;
  const failure = (): FailureContext => run?.failureContext() ?? { label: call.label, code: call.code, limits, watch };
  try {
    const deadline = Date.now() + limits.timeoutMs;
    runtime = loaded.quickjs.newRuntime();
    stats.runtimesCreated += 1;
    // No QuickJS memory limit: the module's memory maximum is the byte bound. QuickJS's limit
    // counts 8 bytes per allocation in this build, and a request it refused would never reach
    // the heap, so the refusal would escape the watch (run-watch.ts).
    runtime.setMaxStackSize(limits.maxStackSizeBytes);
    watch = new RunWatch(loaded, deadline);
    runtime.setInterruptHandler(watch.handler);
    context = runtime.newContext();
    run = new GuestRun(context, runtime, watch, {
      code: call.code,
      filename: call.filename,
      label: call.label,
      functionNames: call.functionNames,
      missingHint: call.missingHint,
      argTexts: call.argTexts,
      limits,
    });
    return run.execute();
  } catch (error) {
    if (error instanceof SandboxError) throw error;
    // A host exception from inside the engine: its state is unknown, so it is not touched again.
    engineBroken = true;
    throw engineFailure(failure(), error);
  } finally {
    if (!engineBroken) engineBroken = !release(run, context, runtime);
    if (engineBroken) {
      if (runtime) stats.runtimesAbandoned += 1;
      discardQuickJS(loaded);
    }
  }
}

/** Disposes handles, context and runtime; false if the engine failed doing so (e.g. a QuickJS abort). */
function release(
  run: GuestRun | undefined,
  context: QuickJSContext | undefined,
  runtime: QuickJSRuntime | undefined,
): boolean {
  try {
    run?.disposeHandles();
    context?.dispose();
    if (runtime) {
      runtime.dispose();
      if (runtime.alive) return false; // counted from the engine's own state, not assumed
      stats.runtimesDisposed += 1;
    }
    return true;
  } catch {
    return false;
  }
}

function encodeArgument(arg: unknown, index: number, label: string): string | undefined {
  try {
    return JSON.stringify(arg); // undefined for undefined (and functions): passed as undefined
  } catch (error) {
    throw new TypeError(
      `${label}: argument ${index + 1} is not JSON-serialisable: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
