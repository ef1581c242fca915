import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ItemRecord, LedgerEntryRecord } from '../../domain/records.ts';
import type { Repositories } from '../../store/store.ts';
import type { ToolResultInput } from '../ledger/result-intake.ts';
import type { InputItem } from '../input-items.ts';
import type { ResolvedInput } from './item-references.ts';
import { isServerExecutor } from './server-call-index.ts';

/**
 * Rules about the input of a request that continues a response, checked before the engine
 * applies it: outputs for calls Baton executes are refused, a turn that waits for approvals is
 * not continued, and an answer to a paused turn holds outputs (and messages) only.
 */

/**
 * Refuses an output for a call Baton executed (or will execute, once approved). Only outputs of
 * calls already in the conversation count: an output replayed with its own call in the same
 * input is history, whatever executed it.
 */
export async function refuseOutputsForServerCalls(
  store: Pick<Repositories, 'ledger' | 'items'>,
  appId: string,
  input: ResolvedInput,
): Promise<void> {
  const replayedCalls = new Set(input.items.flatMap((item) => (item.type === 'function_call' ? [item.callId] : [])));
  const turnItems = new Map<string, ItemRecord[]>();
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
  const awaitingApproval = entry.kind === 'approval' && entry.state === 'pending';
  return new BatonError(
    'server_executed_call',
    `${param} answers call '${entry.id}' (tool '${entry.toolName}'), which Baton executes itself` +
      `${awaitingApproval ? ' once a person approves it' : ' and already ran'}; ` +
      `it needs no output.`,
    {
      param,
      details: { call_id: entry.id },
      data: { call_id: entry.id, tool_name: entry.toolName, awaiting_approval: awaitingApproval },
    },
  );
}

/**
 * Refuses to continue a response whose turn waits for approvals. The turn resumes by itself once
 * they are decided; outputs of client calls of the same step are sent after that, together, so
 * that they resume the turn.
 */
export function refuseWhileApprovalsPending(previousId: string, blocking: readonly LedgerEntryRecord[]): void {
  const approvals = blocking.filter((entry) => entry.kind === 'approval').map((entry) => entry.id);
  if (approvals.length === 0) return;
  const clientCalls = blocking.filter((entry) => entry.kind !== 'approval').map((entry) => entry.id);
  throw new BatonError(
    'approvals_pending',
    `Response '${previousId}' waits for a person to approve ${approvals.join(', ')}; continue it once they are decided.`,
    {
      param: 'previous_response_id',
      details: { pending_approval_ids: approvals, pending_tool_call_ids: clientCalls },
      data: { response_id: previousId, approval_ids: approvals, client_call_ids: clientCalls },
    },
  );
}

/** An answer to a paused turn: the outputs answer its calls, messages follow them. */
export function splitAnswer(
  input: ResolvedInput,
  pending: readonly LedgerEntryRecord[],
): { results: ToolResultInput[]; followUp: InputItem[] } {
  const results: ToolResultInput[] = [];
  const followUp: InputItem[] = [];
  input.items.forEach((item, index) => {
    const param = input.params[index] ?? 'input';
    if (item.type === 'function_call_output')
      results.push({ callId: item.callId, output: item.output, isError: item.isError, param });
    else if (item.type === 'message') followUp.push(item);
    else {
      throw new BatonError(
        'unexpected_function_call',
        `${param} is a call; an answer to a paused turn holds outputs (and messages) only: the calls are already in the conversation.`,
        { param },
      );
    }
  });
  if (results.length === 0) {
    const ids = pending.map((entry) => entry.id);
    throw new BatonError('tool_call_without_output', `No output for the pending calls ${ids.join(', ')}.`, {
      param: 'input',
      data: { missing_call_ids: ids },
    });
  }
  return { results, followUp };
}
