import type { JsonValue } from '../../domain/records.ts';
import { SandboxError } from './sandbox-error.ts';
import type { SandboxLimits } from './sandbox-limits.ts';
import type { SandboxRunner, SandboxRunOptions } from './sandbox-runner.ts';
import { toGuestContext, type SandboxToolContext } from './tool-context.ts';

/**
 * Tool fakes (CES `toolFakeConfig.codeBlock`), in JavaScript instead of CES's Python.
 *
 * Contract for `codeBlock.jsCode` (a plain script):
 *
 *     function fake_get_weather(tool, input, ctx) { … }   // one tool: fake_<toolId>
 *     function fake_tool_call(tool, input, ctx) {          // every tool using this config
 *       if (ctx.variables.scenario === 'down') return { error: 'service unavailable' };
 *       return null;                                       // null/undefined: run the real tool
 *     }
 *
 * - `fake_<toolId>` wins over `fake_tool_call`; in the id, characters an identifier cannot have
 *   become `_` (`get-weather` → `fake_get_weather`). Defining neither is a missing_function error.
 * - `tool` is {id, name, displayName}; `input` the call's arguments; `ctx` {sessionId, agentName,
 *   invocationId, variables}, a copy: variable writes are not shared back (tool-context.ts).
 * - A JSON result is the fake tool result. `null` or `undefined` means "run the real tool"; for a
 *   client function that means: pause and hand the call to the app as usual.
 */

export interface FakeTool {
  readonly id: string;
  readonly name?: string;
  readonly displayName?: string;
}

export interface RunFakeOptions extends SandboxRunOptions {
  /** Where the code runs: the server's worker pool, or the calling thread (sandbox-runner.ts). */
  readonly sandbox: SandboxRunner;
  /** toolFakeConfig.codeBlock.jsCode */
  readonly jsCode: string;
  readonly tool: FakeTool;
  /** The call's arguments (JSON). */
  readonly input: unknown;
  readonly context?: SandboxToolContext;
  /** Callers cap these lower than a real tool's (the fake is a test double, it should be quick). */
  readonly limits?: SandboxLimits;
}

export type FakeOutcome =
  | {
      readonly kind: 'fake';
      readonly result: JsonValue;
      readonly calledFunction: string;
      readonly logs: readonly string[];
    }
  | { readonly kind: 'real'; readonly calledFunction: string; readonly logs: readonly string[] };

export const CATCH_ALL_FAKE = 'fake_tool_call';

/** The per-tool fake's function name: `fake_` + the tool id with non-identifier characters as `_`. */
export function fakeFunctionName(toolId: string): string {
  return `fake_${toolId.replace(/[^A-Za-z0-9_$]/g, '_')}`;
}

/** Runs the fake for one tool call; throws SandboxError (see sandbox-error.ts). */
export async function runFake(options: RunFakeOptions): Promise<FakeOutcome> {
  const { tool } = options;
  const perTool = fakeFunctionName(tool.id);
  const outcome = await options.sandbox.run(
    {
      code: options.jsCode,
      functionNames: perTool === CATCH_ALL_FAKE ? [CATCH_ALL_FAKE] : [perTool, CATCH_ALL_FAKE],
      args: [
        { id: tool.id, name: tool.name ?? null, displayName: tool.displayName ?? null },
        options.input,
        toGuestContext(options.context),
      ],
      label: `fake for tool ${tool.id}`,
      filename: 'fake.js',
      missingHint: ` (declare function ${perTool}(tool, input, ctx) or ${CATCH_ALL_FAKE}(tool, input, ctx); return null to run the real tool)`,
      limits: options.limits,
    },
    { ...(options.owner ? { owner: options.owner } : {}), ...(options.signal ? { signal: options.signal } : {}) },
  );
  const { value, functionName: calledFunction, logs } = outcome;
  return value === undefined || value === null
    ? { kind: 'real', calledFunction, logs }
    : { kind: 'fake', result: value, calledFunction, logs };
}

/**
 * Refuses CES `codeBlock.pythonCode`: Baton has no Python runtime. Accepts a block with only
 * `jsCode` (or none), so CES payloads that use JavaScript pass through unchanged.
 */
export function assertNoPythonCode(codeBlock: { readonly pythonCode?: unknown } | null | undefined): void {
  if (codeBlock?.pythonCode === undefined) return;
  throw new SandboxError(
    'unsupported_code',
    'pythonCode is not supported: Baton runs JavaScript fakes; set codeBlock.jsCode with fake_tool_call(tool, input, ctx)',
  );
}
