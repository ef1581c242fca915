import { BatonError } from '../domain/errors/baton-error.ts';

/**
 * The engine's conversation errors, in neutral words: the code, the ids involved as `data` and
 * the fields at fault. Each face words them in its own dialect (a Threads thread, a Responses
 * response, a CES session) from that data; the message here is what a face shows when it has no
 * words of its own.
 */

export function conversationNotFound(conversationId: string): BatonError {
  return new BatonError('thread_not_found', `No conversation found with id '${conversationId}'.`, {
    data: { conversation_id: conversationId },
  });
}

export function agentNotFound(agentName: string): BatonError {
  return new BatonError('agent_not_found', `No agent named '${agentName}'.`, {
    param: 'agent',
    data: { agent_name: agentName },
  });
}

export function agentDeleted(agentName: string, conversationId: string): BatonError {
  return new BatonError(
    'agent_deleted',
    `Agent '${agentName}' of conversation '${conversationId}' was deleted; start a new conversation with an existing agent.`,
    { data: { agent_name: agentName, conversation_id: conversationId } },
  );
}

/** New input while calls of the conversation wait for their results. */
export function callsPending(conversationId: string, pendingIds: readonly string[]): BatonError {
  return new BatonError(
    'tool_calls_pending',
    `Conversation '${conversationId}' is waiting for the results of tool calls ${pendingIds.join(', ')}; send them, or cancel its turn, before new input.`,
    {
      details: { pending_tool_call_ids: [...pendingIds] },
      data: { conversation_id: conversationId, pending_call_ids: [...pendingIds] },
    },
  );
}

export function conversationBusy(conversationId: string, turnId: string): BatonError {
  return new BatonError(
    'thread_busy',
    `Conversation '${conversationId}' is running turn '${turnId}'; wait for it to finish, or cancel it.`,
    { data: { conversation_id: conversationId, turn_id: turnId } },
  );
}

/** A cancel with nothing to cancel: no turn was active, or it finished first. */
export function nothingToCancel(conversationId: string, finishedMeanwhile: boolean): BatonError {
  return new BatonError(
    'thread_not_active',
    finishedMeanwhile
      ? `Conversation '${conversationId}' finished its turn before it could be cancelled.`
      : `Conversation '${conversationId}' has nothing to cancel: no turn is running or waiting for tool results.`,
    { data: { conversation_id: conversationId, finished_meanwhile: finishedMeanwhile } },
  );
}

/** A lost compare-and-set on the conversation's version. */
export function concurrentUpdate(conversationId: string): BatonError {
  return new BatonError(
    'concurrent_update',
    `Conversation '${conversationId}' was changed by another request at the same time; read its state and retry if still needed.`,
    { data: { conversation_id: conversationId } },
  );
}
