import { BatonError } from '../errors.ts';
import { derivedIdempotencyKey } from '../http/idempotency-key.ts';
import type { ToolCalls } from '../resources/tool-calls.ts';
import type { ToolCallResolution } from '../wire/ledger.ts';
import type { ApprovalHandler, RunCall } from './run-types.ts';

/**
 * Decides approvals with the run's `onApproval`, all at once, through the ledger
 * (`POST /v1/tool-calls/{id}/decision`). A decision someone else made first is not an error:
 * the run goes on with theirs. Returns the answers that resumed the turn (at most one does).
 */
export async function decideApprovals(
  toolCalls: ToolCalls,
  approvals: readonly RunCall[],
  onApproval: ApprovalHandler,
  context: { threadId: string; signal: AbortSignal | undefined },
): Promise<ToolCallResolution[]> {
  const signal = context.signal ?? new AbortController().signal;
  const answers = await Promise.all(
    approvals.map(async (call) => {
      const decision = await onApproval(call, { threadId: context.threadId, signal });
      try {
        return await toolCalls.decide(call.id, decision, {
          signal,
          idempotencyKey: await derivedIdempotencyKey('decision', [call.id], JSON.stringify(decision)),
        });
      } catch (error) {
        if (error instanceof BatonError && error.code === 'tool_call_already_resolved') return null;
        throw error;
      }
    }),
  );
  return answers.filter((answer): answer is ToolCallResolution => answer !== null && answer.resumed);
}
