import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ContentPart, LedgerEntryRecord, SessionRecord } from '../../domain/records.ts';
import type { Repositories } from '../../store/store.ts';
import type { ToolResultInput } from '../ledger/result-intake.ts';
import { notClientsToAnswer } from './session-lock-errors.ts';

/** A client's response to a call of a session, as the face read it from the request. */
export interface SessionResponse {
  /** The id of the call it answers, when the client echoes it. */
  callId: string | undefined;
  /** Without an id: whether a call of this function is one the response names (by its tool). */
  namesFunction(functionName: string): boolean;
  /** The face's echo rules: throws when the response names another tool than the call's. */
  verify(entry: LedgerEntryRecord): void;
  output: ContentPart[];
  isError: boolean;
  /** Where the response sits in the request, for errors. */
  param: string;
}

/**
 * Matches each response to a call waiting for it: by id, or by tool when the id is left out and
 * only one pending call uses that tool. Calls Baton runs (server tools, approvals) are refused:
 * their results come from Baton or from a person's decision, never from the client. Each call is
 * answered once, while it is pending.
 */
export async function matchResponses(
  store: Pick<Repositories, 'ledger'>,
  appId: string,
  session: SessionRecord,
  responses: readonly SessionResponse[],
  pending: readonly LedgerEntryRecord[],
): Promise<ToolResultInput[]> {
  const results: ToolResultInput[] = [];
  const owed = pending.filter((call) => call.kind !== 'approval');
  for (const response of responses) {
    const { param } = response;
    let entry: LedgerEntryRecord | undefined;
    if (response.callId !== undefined) {
      entry = await store.ledger.get(appId, response.callId);
      if (!entry || entry.conversationId !== session.conversationId) {
        const waiting = owed.map((call) => call.id);
        throw new BatonError(
          'unknown_tool_call',
          `${param}.id '${response.callId}' is not a tool call of this session. ` +
            (waiting.length > 0 ? `Pending calls: ${waiting.join(', ')}.` : 'No call is pending.'),
          { param: `${param}.id`, details: { pending_tool_call_ids: waiting } },
        );
      }
      if (entry.kind === 'server' || entry.kind === 'approval') throw notClientsToAnswer(entry, `${param}.id`);
    } else {
      const candidates = owed.filter((call) => response.namesFunction(call.toolName));
      const approval = pending.find((call) => call.kind === 'approval' && response.namesFunction(call.toolName));
      if (candidates.length === 0 && approval) throw notClientsToAnswer(approval, `${param}.tool`);
      if (candidates.length !== 1) {
        throw new BatonError(
          'tool_call_id_required',
          `${param}.id is required: ${candidates.length === 0 ? 'no pending call matches its tool' : 'several pending calls use this tool'}; ` +
            `give the id of the call.`,
          { param: `${param}.id`, data: { matches: candidates.length } },
        );
      }
      entry = candidates[0];
    }
    if (!entry) continue;
    response.verify(entry);
    if (entry.state !== 'pending') {
      throw new BatonError(
        'tool_call_not_pending',
        `Tool call '${entry.id}' is no longer pending (it is ${entry.state}); its response cannot be sent again.`,
        { param: `${param}.id` },
      );
    }
    if (results.some((result) => result.callId === entry.id)) {
      throw new BatonError(
        'duplicate_tool_response',
        `${param} answers call '${entry.id}' a second time; send one response per call.`,
        { param: `${param}.id` },
      );
    }
    results.push({ callId: entry.id, output: response.output, isError: response.isError, param });
  }
  return results;
}
