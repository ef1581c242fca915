import type { RunWatch } from './run-watch.ts';
import type { ResolvedSandboxLimits } from './sandbox-limits.ts';
import { SandboxError } from './sandbox-error.ts';

/**
 * Turns what went wrong in a run into a SandboxError with the right code and a message a tool
 * author can act on: it names the code's owner (`label`) and function and quotes the guest's own
 * error, with guest file positions only (never a host stack).
 *
 * Order matters: the watch's flags win over whatever the guest saw, because a guest may catch an
 * out-of-memory error and throw something else, and a stop at the deadline surfaces as an
 * "interrupted" error wherever the guest happened to be.
 */

/** Where in the run the failure happened. */
export type GuestPhase = 'load' | 'input' | 'lookup' | 'call' | 'await' | 'output';

export interface GuestErrorDetails {
  readonly name: string;
  readonly message: string;
  readonly stack: string;
}

export interface FailureContext {
  /** The code's owner, e.g. `jsFunction get_weather` or `fake for tool t1`. */
  readonly label: string;
  readonly code: string;
  readonly limits: ResolvedSandboxLimits;
  readonly watch: RunWatch | undefined;
  /** The guest function being run, once it is known. */
  readonly functionName?: string;
}

/** A failure caused by a limit the watch saw, if any. */
export function limitFailure(failure: FailureContext): SandboxError | undefined {
  const { watch, label, limits, functionName } = failure;
  if (!watch) return undefined;
  watch.checkMemory();
  const subject = subjectOf(functionName);
  if (watch.memoryExhausted) {
    return new SandboxError(
      'out_of_memory',
      `${label}: ${subject} ran out of memory (limit ${formatBytes(limits.memoryLimitBytes)}; a caught out-of-memory error still counts)`,
      { functionName },
    );
  }
  if (watch.timedOut) {
    return new SandboxError(
      'timeout',
      `${label}: ${subject} did not finish within ${limits.timeoutMs} ms and was stopped`,
      { functionName },
    );
  }
  return undefined;
}

/** Classifies an error the guest threw (or rejected with) during `phase`. */
export function guestFailure(failure: FailureContext, phase: GuestPhase, details: GuestErrorDetails): SandboxError {
  const limited = limitFailure(failure);
  if (limited) return limited;
  const { label, functionName } = failure;
  const { name, message, stack } = details;
  const subject = subjectOf(functionName);
  const quoted = name ? `${name}: ${message}` : message;
  const extra = { functionName, guestStack: stack };
  if (name === 'InternalError' && message === 'out of memory') {
    return new SandboxError(
      'out_of_memory',
      `${label}: ${subject} ran out of memory (limit ${formatBytes(failure.limits.memoryLimitBytes)})`,
      extra,
    );
  }
  if (name === 'InternalError' && message === 'interrupted') {
    return new SandboxError(
      'timeout',
      `${label}: ${subject} did not finish within ${failure.limits.timeoutMs} ms and was stopped`,
      extra,
    );
  }
  if ((name === 'InternalError' || name === 'RangeError') && /stack overflow|call stack/i.test(message)) {
    return new SandboxError(
      'stack_overflow',
      `${label}: ${subject} overflowed the stack (recursion or nesting too deep): ${quoted}`,
      extra,
    );
  }
  if (phase === 'load' && name === 'SyntaxError') {
    const where = /at (\S+:\d+:\d+)/.exec(stack)?.[1];
    return new SandboxError(
      'syntax_error',
      `${label}: the code does not parse${where ? ` (${where})` : ''}: ${message}${syntaxHint(failure.code)}`,
      extra,
    );
  }
  if (phase === 'output') {
    return new SandboxError(
      'invalid_output',
      `${label}: ${subject} returned a value with no JSON form (${quoted})`,
      extra,
    );
  }
  const verb = phase === 'await' ? 'rejected with' : phase === 'input' ? 'could not read its input:' : 'threw';
  return new SandboxError('thrown', `${label}: ${subject} ${verb} ${quoted}`, extra);
}

/**
 * A failure that escaped the engine as a host exception: the host (V8) stack ran out inside the
 * WASM (deeply nested data in JSON.stringify / JSON.parse / String()), or QuickJS aborted. The
 * module is replaced by the caller; here we only name it.
 */
export function engineFailure(failure: FailureContext, error: unknown): SandboxError {
  if (error instanceof SandboxError) return error;
  const limited = limitFailure(failure);
  if (limited) return limited;
  const { label, functionName } = failure;
  const subject = subjectOf(functionName);
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return new SandboxError(
      'stack_overflow',
      `${label}: ${subject} nested too deeply for the engine (the host stack ran out, e.g. in JSON.stringify of deeply nested data); the sandbox was reset`,
      { functionName },
    );
  }
  const kind = error instanceof Error ? error.name : typeof error;
  return new SandboxError(
    'crashed',
    `${label}: the JavaScript engine failed while running ${subject} (${kind}); the sandbox was reset`,
    { functionName },
  );
}

function subjectOf(functionName: string | undefined): string {
  return functionName ? `${functionName}()` : 'the top-level code';
}

function syntaxHint(code: string): string {
  if (/^\s*(import|export)\b/m.test(code)) {
    return ' — import/export are not supported: the code is a plain script; declare functions at the top level, e.g. function main(args, context) { … }';
  }
  if (/^\s*def\s+\w+\s*\(/m.test(code)) return ' — this looks like Python; Baton runs JavaScript';
  return '';
}

function formatBytes(bytes: number): string {
  const MiB = 1024 * 1024;
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${Math.round(bytes / 1024)} KiB`;
}
