import type { JsonValue } from '../../domain/records.ts';
import { isGuestIdentifier, toGuestIdentifier } from './guest-identifier.ts';
import type { SandboxLimits } from './sandbox-limits.ts';
import type { SandboxRunner, SandboxRunOptions } from './sandbox-runner.ts';
import { toGuestContext, type SandboxToolContext } from './tool-context.ts';

/**
 * Baton `jsFunction` tools: `jsFunction.jsCode` run in the sandbox.
 *
 * Contract for the code (a plain script, not a module: no import/export, no require):
 *
 *     function get_weather(args, context) {      // named like the tool's jsFunction.name …
 *       return { city: args.city, tempC: 21 };
 *     }
 *     function main(args, context) { … }         // … or `main`, for a script that serves one tool
 *
 * - The function named like the tool wins; `main` is the fallback. Characters a JavaScript
 *   identifier cannot have become `_` (`get-weather` → `get_weather`; a leading digit gets a `_`
 *   prefix); a tool named like a reserved word (`delete`) must use `main`.
 * - `args` is the model's arguments object; `context` is {sessionId, agentName, invocationId,
 *   variables}, a copy (tool-context.ts).
 * - The return value is the tool result and must be JSON; `undefined` becomes `null`. An async
 *   function may be used, but with no timers or I/O only self-settling promises complete.
 * - console.log output is captured (bounded) and returned as `logs`.
 */

export interface RunJsFunctionOptions extends SandboxRunOptions {
  /** Where the code runs: the server's worker pool, or the calling thread (sandbox-runner.ts). */
  readonly sandbox: SandboxRunner;
  /** jsFunction.jsCode */
  readonly code: string;
  /** jsFunction.name: the function to call (mapped to an identifier), with `main` as fallback. */
  readonly functionName: string;
  /** The call's arguments (JSON). */
  readonly args: unknown;
  readonly context?: SandboxToolContext;
  readonly limits?: SandboxLimits;
}

export interface JsFunctionOutcome {
  /** The function's JSON result (`null` when it returned undefined). */
  readonly result: JsonValue;
  /** The function that ran: the tool-named one or `main`. */
  readonly calledFunction: string;
  readonly logs: readonly string[];
}

/** Throws SandboxError (see sandbox-error.ts for the codes). */
export async function runJsFunction(options: RunJsFunctionOptions): Promise<JsFunctionOutcome> {
  const named = toGuestIdentifier(options.functionName);
  const functionNames = [...new Set([named, 'main'])].filter(isGuestIdentifier);
  const outcome = await options.sandbox.run(
    {
      code: options.code,
      functionNames,
      args: [options.args, toGuestContext(options.context)],
      label: `jsFunction ${options.functionName}`,
      filename: `${named}.js`,
      missingHint: ` (declare function ${isGuestIdentifier(named) ? named : 'main'}(args, context) { … } returning the result)`,
      limits: options.limits,
    },
    { ...(options.owner ? { owner: options.owner } : {}), ...(options.signal ? { signal: options.signal } : {}) },
  );
  return { result: outcome.value ?? null, calledFunction: outcome.functionName, logs: outcome.logs };
}
