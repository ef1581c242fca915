import type { DisposableResult, QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';
import type { JsonValue } from '../../domain/records.ts';
import {
  guestFailure,
  limitFailure,
  type FailureContext,
  type GuestErrorDetails,
  type GuestPhase,
} from './guest-failure.ts';
import {
  installPrelude,
  MAX_ERROR_TEXT_CHARS,
  MAX_LOG_ITEMS,
  readStringArray,
  type PreludeHandles,
} from './guest-prelude.ts';
import type { RunWatch } from './run-watch.ts';
import { SandboxError } from './sandbox-error.ts';
import type { ResolvedSandboxLimits } from './sandbox-limits.ts';

export interface GuestRunInput {
  readonly code: string;
  readonly filename: string;
  readonly label: string;
  /** Valid identifiers (checked by the caller); the first one defined as a function is called. */
  readonly functionNames: readonly string[];
  /** Appended to the missing_function message, e.g. how to declare the function. */
  readonly missingHint?: string;
  /** Each argument as JSON text, or undefined for `undefined`. */
  readonly argTexts: readonly (string | undefined)[];
  readonly limits: ResolvedSandboxLimits;
}

export interface GuestRunOutput {
  readonly functionName: string;
  /** The parsed JSON result; undefined when the guest returned undefined. */
  readonly value: JsonValue | undefined;
  readonly logs: string[];
}

/**
 * One run inside an already created runtime and context: load the code, find the function, pass
 * the inputs as JSON, call, settle a promise, read the result back as JSON.
 *
 * Every handle is tracked and released by disposeHandles() before the context is disposed: a
 * leaked handle makes QuickJS abort when the runtime is freed. Guest errors become SandboxErrors;
 * host exceptions (the engine failing) are left to the caller, which replaces the module.
 */
export class GuestRun {
  private readonly handles: QuickJSHandle[] = [];
  private helpers: PreludeHandles | undefined;
  private functionName: string | undefined;

  constructor(
    private readonly context: QuickJSContext,
    private readonly runtime: QuickJSRuntime,
    private readonly watch: RunWatch,
    private readonly input: GuestRunInput,
  ) {}

  execute(): GuestRunOutput {
    try {
      return this.run();
    } catch (error) {
      if (error instanceof SandboxError) throw error.withLogs(this.readLogsQuietly());
      throw error;
    }
  }

  /** Releases every handle this run created, newest first. */
  disposeHandles(): void {
    for (let i = this.handles.length - 1; i >= 0; i--) {
      const handle = this.handles[i];
      if (handle?.alive) handle.dispose();
    }
    this.handles.length = 0;
  }

  /** The context this run is in, for error classification. */
  failureContext(): FailureContext {
    const { label, code, limits } = this.input;
    return { label, code, limits, watch: this.watch, functionName: this.functionName };
  }

  private run(): GuestRunOutput {
    const { context } = this;
    this.helpers = installPrelude(context, this.track);
    this.unwrap(context.evalCode(this.input.code, this.input.filename, { type: 'global' }), 'load');
    const fn = this.lookup();
    const args = this.input.argTexts.map((text) => this.parseInput(text));
    const returned = this.unwrap(context.callFunction(fn, context.undefined, args), 'call');
    const value = this.serialise(this.settle(returned));
    const limited = limitFailure(this.failureContext());
    if (limited) throw limited;
    this.watch.enterGrace();
    return { functionName: this.functionName ?? '', value, logs: this.readLogs() };
  }

  private readonly track = <T extends QuickJSHandle>(handle: T): T => {
    this.handles.push(handle);
    return handle;
  };

  private unwrap(result: DisposableResult<QuickJSHandle, QuickJSHandle>, phase: GuestPhase): QuickJSHandle {
    if (result.error) throw this.fail(phase, this.track(result.error));
    return this.track(result.value);
  }

  private fail(phase: GuestPhase, error: QuickJSHandle): SandboxError {
    const limited = limitFailure(this.failureContext());
    if (limited) return limited;
    this.watch.enterGrace(); // the run is over; reading the error may run guest getters
    return guestFailure(this.failureContext(), phase, this.describe(error));
  }

  private describe(error: QuickJSHandle): GuestErrorDetails {
    const unreadable = { name: '', message: '(the thrown value could not be read)', stack: '' };
    if (!this.helpers) return unreadable;
    const max = this.track(this.context.newNumber(MAX_ERROR_TEXT_CHARS));
    const result = this.context.callFunction(this.helpers.describe, this.context.undefined, error, max);
    if (result.error) {
      this.track(result.error);
      return unreadable;
    }
    const [name = '', message = '', stack = ''] = readStringArray(this.context, this.track(result.value), 3);
    return { name, message, stack };
  }

  private lookup(): QuickJSHandle {
    for (const name of this.input.functionNames) {
      // Lexical declarations (const main = …) are not properties of globalThis, so the name is
      // evaluated in the global scope rather than read off the global object.
      const source = `typeof ${name} === 'function' ? ${name} : undefined`;
      const found = this.unwrap(this.context.evalCode(source, 'baton-lookup.js', { type: 'global' }), 'lookup');
      if (this.context.typeof(found) === 'function') {
        this.functionName = name;
        return found;
      }
    }
    const limited = limitFailure(this.failureContext());
    if (limited) throw limited;
    const names = this.input.functionNames;
    const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
    throw new SandboxError(
      'missing_function',
      `${this.input.label}: the code defines no function named ${list}${this.input.missingHint ?? ''}`,
    );
  }

  private parseInput(text: string | undefined): QuickJSHandle {
    if (text === undefined || !this.helpers) return this.context.undefined;
    const json = this.track(this.context.newString(text));
    return this.unwrap(this.context.callFunction(this.helpers.parse, this.context.undefined, json), 'input');
  }

  /**
   * Async functions are supported: their promise can only settle through the job queue, since
   * the guest has no timers or I/O, so running pending jobs (under the same deadline) is enough.
   */
  private settle(value: QuickJSHandle): QuickJSHandle {
    const first = this.context.getPromiseState(value);
    if (first.type === 'fulfilled' && first.notAPromise) return value;
    if (first.type === 'fulfilled') this.track(first.value);
    if (first.type === 'rejected') this.track(first.error);
    for (;;) {
      const jobs = this.runtime.executePendingJobs();
      const failed = jobs.error !== undefined;
      jobs.dispose();
      const limited = limitFailure(this.failureContext());
      if (limited) throw limited;
      if (!failed || !this.runtime.hasPendingJob()) break;
    }
    const state = this.context.getPromiseState(value);
    if (state.type === 'rejected') throw this.fail('await', this.track(state.error));
    if (state.type === 'pending') {
      throw new SandboxError(
        'invalid_output',
        `${this.input.label}: ${this.functionName}() returned a promise that never settled (the sandbox ` +
          `has no timers or I/O: only promises that settle on their own can be awaited)`,
        { functionName: this.functionName },
      );
    }
    return state.notAPromise ? state.value : this.track(state.value);
  }

  private serialise(value: QuickJSHandle): JsonValue | undefined {
    const { context, input } = this;
    const kind = context.typeof(value);
    if (kind === 'undefined' || !this.helpers) return undefined;
    const fn = `${this.functionName}()`;
    if (kind === 'function' || kind === 'symbol') {
      throw new SandboxError('invalid_output', `${input.label}: ${fn} returned a ${kind}, which has no JSON form`, {
        functionName: this.functionName,
      });
    }
    const text = this.unwrap(context.callFunction(this.helpers.stringify, context.undefined, value), 'output');
    if (context.typeof(text) !== 'string') {
      throw new SandboxError(
        'invalid_output',
        `${input.label}: ${fn} returned a value with no JSON form (JSON.stringify gave ${context.typeof(text)})`,
        { functionName: this.functionName },
      );
    }
    // Check the length before copying the text out: UTF-8 is at least one byte per UTF-16 unit.
    const lengthHandle = this.track(context.getProp(text, 'length'));
    const units = context.getNumber(lengthHandle);
    const json = units > input.limits.maxOutputBytes ? undefined : context.getString(text);
    const bytes = json === undefined ? units : Buffer.byteLength(json, 'utf8');
    if (json === undefined || bytes > input.limits.maxOutputBytes) {
      const size = json === undefined ? `at least ${bytes}` : `${bytes}`;
      throw new SandboxError(
        'output_too_large',
        `${input.label}: ${fn} returned ${size} bytes of JSON; the limit is ${input.limits.maxOutputBytes} bytes`,
        { functionName: this.functionName },
      );
    }
    return JSON.parse(json) as JsonValue;
  }

  private readLogs(): string[] {
    if (!this.helpers) return [];
    const result = this.context.callFunction(this.helpers.readLogs, this.context.undefined);
    if (result.error) {
      this.track(result.error);
      return [];
    }
    return readStringArray(this.context, this.track(result.value), MAX_LOG_ITEMS);
  }

  private readLogsQuietly(): string[] {
    try {
      this.watch.enterGrace();
      return this.readLogs();
    } catch {
      return []; // the logs are a courtesy; the failure being reported matters more
    }
  }
}
