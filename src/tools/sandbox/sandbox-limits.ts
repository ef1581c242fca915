/**
 * Per-call limits of a sandboxed JavaScript run, with defaults.
 */
export interface SandboxLimits {
  /** Wall-clock deadline for the whole run: top-level code, the call, awaiting, serialising. */
  timeoutMs?: number;
  /**
   * All the memory the engine may use, in bytes: the maximum of the WASM module's linear memory
   * (quickjs-module.ts), so a hard bound on host memory. It includes the engine itself (code
   * data, stack, a fresh runtime: ~4 MiB), so a guest gets roughly this minus 4 MiB. At least
   * 16 MiB, the module's initial size. Rounded up to 64 KiB; one module is kept per size in use.
   */
  memoryLimitBytes?: number;
  /**
   * QuickJS's stack limit. QuickJS measures Emscripten's shadow stack, which grows far slower than
   * the host (V8) stack the WASM frames really use; above ~256 KiB plain recursion overflows the
   * host stack before QuickJS notices (measured), so the default stays low: ~740 frames. Native
   * recursion (JSON.stringify of deeply nested data) can still exhaust the host stack; that is
   * caught and reported as stack_overflow, and the module replaced.
   */
  maxStackSizeBytes?: number;
  /** Cap on the result's JSON text, in UTF-8 bytes. */
  maxOutputBytes?: number;
}

export type ResolvedSandboxLimits = Required<SandboxLimits>;

const KiB = 1024;
const MiB = 1024 * KiB;

export const DEFAULT_SANDBOX_LIMITS: Readonly<ResolvedSandboxLimits> = Object.freeze({
  timeoutMs: 1000,
  memoryLimitBytes: 16 * MiB,
  maxStackSizeBytes: 128 * KiB,
  maxOutputBytes: 256 * KiB,
});

/** Bounds that keep a misconfiguration from disabling a guard (0 means "no limit" to QuickJS). */
const BOUNDS: Readonly<Record<keyof SandboxLimits, readonly [min: number, max: number]>> = {
  timeoutMs: [1, 10 * 60 * 1000],
  memoryLimitBytes: [16 * MiB, 1024 * MiB],
  maxStackSizeBytes: [16 * KiB, 256 * KiB],
  maxOutputBytes: [1, 64 * MiB],
};

/** Fills in defaults; a value outside its bounds is a configuration error, reported as such. */
export function resolveSandboxLimits(limits: SandboxLimits | undefined): ResolvedSandboxLimits {
  const resolved = { ...DEFAULT_SANDBOX_LIMITS };
  for (const key of Object.keys(BOUNDS) as (keyof SandboxLimits)[]) {
    const value = limits?.[key];
    if (value === undefined) continue;
    const [min, max] = BOUNDS[key];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new RangeError(`sandbox limit ${key} must be an integer between ${min} and ${max}; got ${String(value)}`);
    }
    resolved[key] = value;
  }
  return resolved;
}
