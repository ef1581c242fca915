import type { EngineError } from '../../../engine/engine-error.ts';
import type { LedgerEntryRecord } from '../../../domain/records.ts';
import { cesError } from '../ces-errors.ts';

/**
 * The errors of a locked session (reference/ces.md §5.3): each says what the session waits for
 * and who can unlock it, with the call ids in ErrorInfo metadata so a program can recover.
 */

/** The client owes responses; approvals of the same step, if any, are named so nothing surprises later. */
export function responsesPendingError(
  sessionName: string,
  pending: readonly LedgerEntryRecord[],
  approvals: readonly LedgerEntryRecord[],
): EngineError {
  const ids = pending.map((entry) => entry.id);
  const approvalNote =
    approvals.length > 0
      ? ` Tool calls ${approvals.map((entry) => entry.id).join(', ')} also wait for a person's approval (POST /v1/tool-calls/{id}/decision).`
      : '';
  return cesError(
    'FAILED_PRECONDITION',
    'TOOL_RESPONSES_PENDING',
    `Session '${sessionName}' is waiting for the responses of tool calls ${ids.join(', ')}. Send them as toolResponses (with the same id, tool and displayName) before other input; you may add text in the same request once every pending call is answered.${approvalNote}`,
    {
      metadata: {
        pendingToolCallIds: ids.join(','),
        ...(approvals.length > 0 ? { pendingApprovalIds: approvals.map((entry) => entry.id).join(',') } : {}),
      },
    },
  );
}

/** Only a person can unlock the session: new input waits until every approval is decided. */
export function approvalPendingError(sessionName: string, approvals: readonly LedgerEntryRecord[]): EngineError {
  const ids = approvals.map((entry) => entry.id);
  return cesError(
    'FAILED_PRECONDITION',
    'APPROVAL_PENDING',
    `Session '${sessionName}' is waiting for a person to approve tool calls ${ids.join(', ')} (${approvals.map((entry) => entry.toolName).join(', ')}). ` +
      `Decide each with POST /v1/tool-calls/{id}/decision {"approve": true} or {"approve": false, "reason": "…"}; the turn then goes on, and the session takes new input once it has finished.`,
    { metadata: { pendingApprovalIds: ids.join(',') } },
  );
}

/** A toolResponse for a call Baton runs: a server tool's result comes from the tool, an approval's from a decision. */
export function notClientsToAnswer(entry: LedgerEntryRecord, field: string): EngineError {
  const how =
    entry.kind === 'approval'
      ? `it waits for a person's approval: decide it with POST /v1/tool-calls/${entry.id}/decision {"approve": true|false, "reason": "…"}`
      : `Baton runs tool '${entry.toolName}' itself and already has its result`;
  return cesError(
    'INVALID_ARGUMENT',
    'NOT_A_CLIENT_TOOL_CALL',
    `Tool call '${entry.id}' is not the client's to answer: ${how}. Send toolResponses only for the calls listed in toolCalls outputs.`,
    {
      field,
      metadata: { toolCallId: entry.id },
    },
  );
}
