import { BatonError } from '../../domain/errors/baton-error.ts';
import type { LedgerEntryRecord } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import type { ParsedInput } from './response-request.ts';
import { isServerExecutor } from './server-call-state.ts';

/**
 * Input rules about calls Baton executes itself, checked by the face before the engine sees the
 * input: the engine would refuse too, but in its own terms ("already completed", or a conflict
 * over a missing results message), which does not tell an OpenAI client what it did wrong.
 */

/**
 * Refuses a `function_call_output` that answers a call Baton executed (or will execute, once
 * approved). Only outputs of calls already in the conversation count: an output replayed with
 * its own call in the same input is history, whatever executed it.
 */
export async function refuseOutputsForServerCalls(store: Store, appId: string, input: ParsedInput): Promise<void> {
  const replayedCalls = new Set(input.items.flatMap((item) => (item.type === 'function_call' ? [item.callId] : [])));
  const turnItems = new Map<string, Awaited<ReturnType<Store['items']['listByTurn']>>>();
  for (const [index, item] of input.items.entries()) {
    if (item.type !== 'function_call_output' || replayedCalls.has(item.callId)) continue;
    const entry = await store.ledger.get(appId, item.callId);
    if (!entry) continue;
    const param = input.params[index] ?? 'input';
    if (entry.kind === 'approval' || entry.kind === 'server') throw serverCallOutput(param, entry);
    // A pending client call is the client's to answer (the usual case, settled without more reads).
    if (entry.state === 'pending') continue;
    // A resolved client call may have been answered by a tool fake: its call item says so.
    let items = turnItems.get(entry.turnId);
    if (!items) turnItems.set(entry.turnId, (items = await store.items.listByTurn(entry.turnId)));
    const call = items.find(
      (candidate) => candidate.payload.type === 'function_call' && candidate.payload.callId === item.callId,
    );
    if (call?.payload.type === 'function_call' && isServerExecutor(call.payload.executor))
      throw serverCallOutput(param, entry);
  }
}

function serverCallOutput(param: string, entry: LedgerEntryRecord): BatonError {
  const what = `${param} is a function_call_output for call '${entry.id}' (tool '${entry.toolName}'), which Baton executes itself`;
  const message =
    entry.kind === 'approval' && entry.state === 'pending'
      ? `${what} once a person approves it (POST /v1/tool-calls/${entry.id}/decision); it needs no output. Send function_call_output only for function_call items, not for baton:tool_call items.`
      : `${what}: it already ran and its result is in the conversation (the baton:tool_result item), so it needs no output. Send function_call_output only for function_call items, not for baton:tool_call items.`;
  return new BatonError('server_executed_call', message, { param, details: { call_id: entry.id } });
}

/**
 * Refuses to continue a response whose turn waits for approvals. The turn resumes by itself once
 * they are decided; outputs of client calls of the same step are sent after that, together, so
 * that they resume the turn (the engine would hold them without resuming, leaving this request
 * with no response to answer with).
 */
export function refuseWhileApprovalsPending(previousId: string, blocking: readonly LedgerEntryRecord[]): void {
  const approvals = blocking.filter((entry) => entry.kind === 'approval').map((entry) => entry.id);
  if (approvals.length === 0) return;
  const clientCalls = blocking.filter((entry) => entry.kind !== 'approval').map((entry) => entry.id);
  const decide = approvals.map((id) => `POST /v1/tool-calls/${id}/decision`).join(', ');
  const then =
    clientCalls.length > 0
      ? `then continue from '${previousId}' with the function_call_output items of ${clientCalls.join(', ')}.`
      : `the turn then resumes by itself: read its outcome with GET /v1/responses/${previousId}.`;
  throw new BatonError(
    'approvals_pending',
    `Response '${previousId}' waits for a person to approve ${approvals.join(', ')} (${decide}); ${then}`,
    {
      param: 'previous_response_id',
      details: { pending_approval_ids: approvals, pending_tool_call_ids: clientCalls },
    },
  );
}
