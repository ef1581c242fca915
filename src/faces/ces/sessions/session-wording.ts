import { BatonError } from '../../../domain/errors/baton-error.ts';

/**
 * The engine's session errors in CES words: a session is named by its resource name, responses
 * travel as `toolResponses` that echo the call's id, tool and displayName. Built from the
 * errors' data; anything else passes through unchanged.
 */
export function inSessionWords(error: unknown, sessionName: string): unknown {
  if (!(error instanceof BatonError)) return error;
  const message = sessionMessage(error, sessionName);
  return message === error.message
    ? error
    : new BatonError(error.code, message, { param: error.param, details: error.details, data: error.data });
}

function sessionMessage(error: BatonError, sessionName: string): string {
  const data = error.data;
  const list = (key: string): string[] => (Array.isArray(data[key]) ? (data[key] as string[]) : []);
  switch (error.code) {
    case 'session_ended':
      return `Session '${sessionName}' has ended; start a new session id to talk again.`;
    case 'session_busy':
      return data['started_concurrently'] === true
        ? error.message
        : `Session '${sessionName}' is running a turn for another request; retry when it has finished.`;
    case 'unknown_tool_call':
      return data['new_session'] === true
        ? `Session '${sessionName}' is new and has no tool calls to respond to; remove toolResponses.`
        : error.message;
    case 'tool_responses_pending': {
      const approvals = list('approval_ids');
      const approvalNote =
        approvals.length > 0
          ? ` Tool calls ${approvals.join(', ')} also wait for a person's approval (POST /v1/tool-calls/{id}/decision).`
          : '';
      return (
        `Session '${sessionName}' is waiting for the responses of tool calls ${list('pending_call_ids').join(', ')}. ` +
        `Send them as toolResponses (with the same id, tool and displayName) before other input; you ` +
        `may add text in the same request once every pending call is answered.${approvalNote}`
      );
    }
    case 'approval_pending':
      return (
        `Session '${sessionName}' is waiting for a person to approve tool calls ${list('approval_ids').join(', ')} (${list('tool_names').join(', ')}). ` +
        `Decide each with POST /v1/tool-calls/{id}/decision {"approve": true} or {"approve": false, ` +
        `"reason": "…"}; the turn then goes on, and the session takes new input once it has finished.`
      );
    case 'not_a_client_tool_call':
      return `${error.message} Send toolResponses only for the calls listed in toolCalls outputs.`;
    case 'tool_call_id_required':
      return error.message.replace(/give the id of the call\.$/, 'echo the id of the toolCall.');
    default:
      return error.message;
  }
}
