import { BatonError } from '../../domain/errors/baton-error.ts';
import type { LedgerEntryRecord } from '../../domain/records.ts';

/**
 * The errors of a locked session: each says what the session waits for and who can unlock it,
 * with the call ids as details so a program can recover. Faces word them in their dialect.
 */

/** The client owes responses; approvals of the same step, if any, are named so nothing surprises later. */
export function responsesPending(
  sessionId: string,
  pending: readonly LedgerEntryRecord[],
  approvals: readonly LedgerEntryRecord[],
): BatonError {
  const ids = pending.map((entry) => entry.id);
  const approvalIds = approvals.map((entry) => entry.id);
  return new BatonError(
    'tool_responses_pending',
    `Session '${sessionId}' is waiting for the results of tool calls ${ids.join(', ')} before other input.`,
    {
      details: { pending_tool_call_ids: ids, ...(approvalIds.length > 0 ? { pending_approval_ids: approvalIds } : {}) },
      data: { session_id: sessionId, pending_call_ids: ids, approval_ids: approvalIds },
    },
  );
}

/** Only a person can unlock the session: new input waits until every approval is decided. */
export function approvalPending(sessionId: string, approvals: readonly LedgerEntryRecord[]): BatonError {
  const ids = approvals.map((entry) => entry.id);
  return new BatonError(
    'approval_pending',
    `Session '${sessionId}' is waiting for a person to approve tool calls ${ids.join(', ')}.`,
    {
      details: { pending_approval_ids: ids },
      data: { session_id: sessionId, approval_ids: ids, tool_names: approvals.map((entry) => entry.toolName) },
    },
  );
}

/** A response for a call Baton runs: a server tool's result comes from the tool, an approval's from a decision. */
export function notClientsToAnswer(entry: LedgerEntryRecord, param: string): BatonError {
  const how =
    entry.kind === 'approval'
      ? `it waits for a person's approval: decide it with POST /v1/tool-calls/${entry.id}/decision {"approve": true|false, "reason": "…"}`
      : `Baton runs tool '${entry.toolName}' itself and already has its result`;
  return new BatonError('not_a_client_tool_call', `Tool call '${entry.id}' is not the client's to answer: ${how}.`, {
    param,
    details: { tool_call_id: entry.id },
  });
}
