import { z } from 'zod';
import { runJsFunction } from '../../tools/sandbox/js-function.ts';
import { sandboxContext } from '../tools/call-environment.ts';
import { toolSchemaObject } from '../tools/common-schemas.ts';
import { requireText } from '../tools/common-rules.ts';
import { jsonResult } from '../tools/tool-results.ts';
import { checkFunction, declaredFunction, functionName } from './function-declaration.ts';
import type { ServerToolKind } from './tool-kind.ts';

/** A jsFunction without its own timeout gets this long (a pure computation should be quick). */
const DEFAULT_JS_TIMEOUT_MS = 5_000;

/**
 * The guest's budget: under the tool's timeout (already capped by tools.max_timeout_seconds), so
 * the sandbox's own message, which names the function, wins over the engine's "did not answer".
 * The margin is a fifth of the timeout (0.1 to 1 s): the guest runs in a worker while the engine's
 * deadline runs on the event loop, and the call must reach the worker and its answer come back.
 */
function sandboxTimeoutMs(hasOwnTimeout: boolean, callTimeoutMs: number): number {
  const margin = Math.min(1_000, Math.max(100, callTimeoutMs / 5));
  const budget = Math.min(hasOwnTimeout ? Infinity : DEFAULT_JS_TIMEOUT_MS, callTimeoutMs - margin);
  return Math.max(50, Math.floor(budget));
}

/** `jsFunction`: JavaScript Baton runs in its sandbox (Baton's counterpart of CES `pythonFunction`). */
export const jsFunctionKind: ServerToolKind = {
  key: 'jsFunction',
  collection: 'tools',
  executor: 'server',
  description: "One of tool_type: JavaScript run by Baton (Baton's replacement for pythonFunction).",
  schema: z.strictObject({
    name: z.string().optional().describe('Required. ^[a-zA-Z0-9_-]{1,64}$; the function jsCode defines.'),
    description: z.string().optional(),
    parameters: toolSchemaObject.optional(),
    response: toolSchemaObject.optional(),
    jsCode: z.string().optional().describe('Required. JavaScript source defining the function.'),
  }),
  async validate(_context, member, prefix) {
    checkFunction(member, prefix);
    requireText(member, 'jsCode', prefix);
    return member;
  },
  displayName: functionName,
  async definitions({ record, member }) {
    const declared = declaredFunction(member);
    return declared ? [{ ...declared, server: { collection: 'tools', resourceId: record.id } }] : [];
  },
  async run({ member, call, environment }, runtime) {
    const outcome = await runJsFunction({
      sandbox: runtime.sandbox,
      owner: environment.appId,
      signal: environment.signal,
      code: String(member.jsCode ?? ''),
      functionName: String(member.name ?? call.tool.name),
      args: call.arguments,
      context: sandboxContext(environment),
      limits: { timeoutMs: sandboxTimeoutMs(call.tool.timeoutSeconds !== undefined, environment.timeoutMs) },
    });
    return jsonResult(outcome.result);
  },
};
