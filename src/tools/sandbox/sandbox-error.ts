/**
 * Why a sandboxed JavaScript run failed.
 *
 * The codes are what callers branch on (a tool error result, an INVALID_ARGUMENT, a log line);
 * the message is for people: it names the code's owner (tool or fake) and function and quotes the
 * guest's own error message, never a host stack.
 */
export type SandboxErrorCode =
  /** The wall-clock deadline passed; the guest was stopped (it cannot catch this). */
  | 'timeout'
  /** The guest hit a memory limit, even if it caught the error and carried on (see run-watch.ts). */
  | 'out_of_memory'
  /** The guest threw (or its promise rejected); the message quotes the guest error. */
  | 'thrown'
  /** The result is not JSON: a function, a symbol, a cycle, a BigInt, a promise that never settles. */
  | 'invalid_output'
  /** The result's JSON is larger than the output cap. */
  | 'output_too_large'
  /** The code does not parse as a plain script (this includes `import` / `export`). */
  | 'syntax_error'
  /** None of the expected function names is defined as a function. */
  | 'missing_function'
  /** Recursion or nesting too deep, in guest code or inside the engine (JSON, regexps). */
  | 'stack_overflow'
  /** The engine itself failed (an abort inside QuickJS); the WASM module was replaced. */
  | 'crashed'
  /** The code is in a language Baton does not run (CES `pythonCode`). */
  | 'unsupported_code'
  /** No sandbox worker took the call: too many calls wait already, or none was free in time (sandbox-pool.ts). */
  | 'busy';

/** A SandboxError as plain data, to cross from a worker thread (sandbox-worker.ts). */
export interface SandboxErrorData {
  readonly code: SandboxErrorCode;
  readonly message: string;
  readonly functionName: string | undefined;
  readonly guestStack: string | undefined;
  readonly logs: readonly string[];
}

export class SandboxError extends Error {
  readonly code: SandboxErrorCode;
  /** The guest function involved, when there is one. */
  readonly functionName: string | undefined;
  /** The guest's stack (guest file and line numbers only), for logs; not part of the message. */
  readonly guestStack: string | undefined;
  /** What the guest wrote with console.* before it failed (bounded, see guest-prelude.ts). */
  readonly logs: readonly string[];

  constructor(
    code: SandboxErrorCode,
    message: string,
    details: { functionName?: string; guestStack?: string; logs?: readonly string[] } = {},
  ) {
    super(message);
    this.name = 'SandboxError';
    this.code = code;
    this.functionName = details.functionName;
    this.guestStack = details.guestStack || undefined;
    this.logs = details.logs ?? [];
  }

  static fromData(data: SandboxErrorData): SandboxError {
    const { code, message, functionName, guestStack, logs } = data;
    return new SandboxError(code, message, {
      ...(functionName === undefined ? {} : { functionName }),
      ...(guestStack === undefined ? {} : { guestStack }),
      logs,
    });
  }

  toData(): SandboxErrorData {
    const { code, message, functionName, guestStack, logs } = this;
    return { code, message, functionName, guestStack, logs: [...logs] };
  }

  /** The same failure with the logs the run captured attached (they are read after the failure). */
  withLogs(logs: readonly string[]): SandboxError {
    if (logs.length === 0 || this.logs.length > 0) return this;
    return new SandboxError(this.code, this.message, {
      functionName: this.functionName,
      guestStack: this.guestStack,
      logs,
    });
  }
}
