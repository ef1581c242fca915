import type { BatonError } from '../../domain/errors/baton-error.ts';

/**
 * The engine's conversation errors in the words of Baton's native API (Threads and the ledger):
 * a conversation is a thread, results are `tool_result` blocks, and the way out is an endpoint
 * of this API. Built from the error's data, never from its message; an error without the data
 * (thrown elsewhere, or by a rule that needs no rewording) keeps its own message.
 */
export function nativeMessage(error: BatonError): string {
  const data = error.data;
  const thread = typeof data['conversation_id'] === 'string' ? data['conversation_id'] : null;
  const ids = (key: string): string[] => (Array.isArray(data[key]) ? (data[key] as string[]) : []);
  switch (error.code) {
    case 'thread_not_found':
      return thread ? `No thread found with id '${thread}'.` : error.message;
    case 'agent_not_found':
      return typeof data['agent_name'] === 'string'
        ? `No agent named '${data['agent_name']}'. List agents with GET /v1/agents.`
        : error.message;
    case 'agent_deleted':
      return `Agent '${String(data['agent_name'])}' of thread '${thread}' was deleted; create a new thread with an existing agent.`;
    case 'tool_calls_pending':
      return (
        `Thread '${thread}' is waiting for the results of tool calls ${ids('pending_call_ids').join(', ')}. ` +
        `Send them as tool_result blocks in one message, or cancel the turn with POST /v1/threads/${thread}/cancel, ` +
        `before sending new input.`
      );
    case 'thread_busy':
      return `Thread '${thread}' is running turn '${String(data['turn_id'])}'. Wait for its response, or cancel it with POST /v1/threads/${thread}/cancel.`;
    case 'thread_not_active':
      return data['finished_meanwhile'] === true
        ? `Thread '${thread}' finished its turn before it could be cancelled.`
        : `Thread '${thread}' has nothing to cancel: no turn is running or waiting for tool results.`;
    case 'thread_not_pending':
      return `Thread '${thread}' is not waiting for tool results.`;
    case 'concurrent_update':
      return thread
        ? `Thread '${thread}' was changed by another request at the same time; read its state and retry if still needed.`
        : error.message;
    case 'invalid_tool_call_id': {
      if (data['not_asynchronous'] === true || !thread) return error.message;
      const pending = ids('pending_call_ids');
      return (
        `Invalid tool_call_id '${String(data['call_id'])}' at ${error.param}: thread '${thread}' has no tool call with this id. ` +
        (pending.length > 0
          ? `Use the exact ids from tool_calls[].id; pending calls: ${pending.join(', ')}.`
          : 'The thread has no pending tool calls.')
      );
    }
    case 'missing_tool_results': {
      const pending = ids('pending_call_ids');
      return (
        `Missing results for pending tool calls ${ids('missing_call_ids').join(', ')}: send the results ` +
        `of all ${pending.length} pending calls in one message, or submit them one at a time with POST ` +
        `/v1/tool-calls/{id}/result.`
      );
    }
    default:
      return error.message;
  }
}
