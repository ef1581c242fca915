import { BatonError } from '../../../domain/errors/baton-error.ts';
import type { LedgerEntryRecord } from '../../../domain/records.ts';

/**
 * The errors of a locked session (reference/ces.md §5.3): each says what the session waits for
 * and who can unlock it, with the call ids in ErrorInfo metadata so a program can recover.
 */

/** The client owes responses; approvals of the same step, if any, are named so nothing surprises later. */
export function responsesPendingError(
  sessionName: string,
  pending: readonly LedgerEntryRecord[],
  approvals: readonly LedgerEntryRecord[],
): BatonError {
  const ids = pending.map((entry) => entry.id);
  const approvalNote =
    approvals.length > 0
      ? ` Tool calls ${approvals.map((entry) => entry.id).join(', ')} also wait for a person's approval (POST /v1/tool-calls/{id}/decision).`
      : '';
  return new BatonError(
    'tool_responses_pending',
    `Session '${sessionName}' is waiting for the responses of tool calls ${ids.join(', ')}. Send them as toolResponses (with the same id, tool and displayName) before other input; you may add text in the same request once every pending call is answered.${approvalNote}`,
    {
      details: {
        pending_tool_call_ids: ids,
        ...(approvals.length > 0 ? { pending_approval_ids: approvals.map((entry) => entry.id) } : {}),
      },
    },
  );
}

/** Only a person can unlock the session: new input waits until every approval is decided. */
export function approvalPendingError(sessionName: string, approvals: readonly LedgerEntryRecord[]): BatonError {
  const ids = approvals.map((entry) => entry.id);
  return new BatonError(
    'approval_pending',
    `Session '${sessionName}' is waiting for a person to approve tool calls ${ids.join(', ')} (${approvals.map((entry) => entry.toolName).join(', ')}). ` +
      `Decide each with POST /v1/tool-calls/{id}/decision {"approve": true} or {"approve": false, "reason": "…"}; the turn then goes on, and the session takes new input once it has finished.`,
    { details: { pending_approval_ids: ids } },
  );
}

/** A toolResponse for a call Baton runs: a server tool's result comes from the tool, an approval's from a decision. */
export function notClientsToAnswer(entry: LedgerEntryRecord, field: string): BatonError {
  const how =
    entry.kind === 'approval'
      ? `it waits for a person's approval: decide it with POST /v1/tool-calls/${entry.id}/decision {"approve": true|false, "reason": "…"}`
      : `Baton runs tool '${entry.toolName}' itself and already has its result`;
  return new BatonError(
    'not_a_client_tool_call',
    `Tool call '${entry.id}' is not the client's to answer: ${how}. Send toolResponses only for the calls listed in toolCalls outputs.`,
    {
      param: field,
      details: { tool_call_id: entry.id },
    },
  );
}
