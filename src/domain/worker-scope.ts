import { BatonError } from './errors/baton-error.ts';
import type { Principal } from './principal.ts';

/**
 * A worker key (one minted with `tools`) may only claim and answer calls of its tools, on the
 * tool-call routes (docs/tool-workers.md). These are the refusals it meets outside them.
 */

/** Refuses a route a worker key may not reach. */
export function outOfWorkerScope(principal: Principal): BatonError {
  return new BatonError(
    'key_out_of_scope',
    `Key ${principal.keyId} is a worker key for tools [${(principal.toolScope ?? []).join(', ')}]: it may only claim, ` +
      'renew, release, read and answer their calls under /v1/tool-calls. Use another key of the app for this request.',
    { details: { tool_scope: [...(principal.toolScope ?? [])] } },
  );
}

/** Whether the key may act on calls of `toolName` (every key but a worker key of other tools may). */
export function toolInScope(principal: Principal, toolName: string): boolean {
  return principal.toolScope === undefined || principal.toolScope.includes(toolName);
}

/** Refuses a worker key's action on a call (or a claim) of a tool outside its scope. */
export function requireToolInScope(principal: Principal, toolName: string, param: string | null): void {
  if (toolInScope(principal, toolName)) return;
  throw new BatonError(
    'key_out_of_scope',
    `Key ${principal.keyId} is a worker key for tools [${(principal.toolScope ?? []).join(', ')}], not for '${toolName}'. ` +
      'Use a worker key whose tools include it, or an ordinary key of the app.',
    { param, details: { tool: toolName, tool_scope: [...(principal.toolScope ?? [])] } },
  );
}
