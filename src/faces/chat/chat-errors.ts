import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { ErrorRenderer } from '../kit/face-context.ts';

/**
 * Errors of the Chat Completions face (and `/v1/models`) in OpenAI's format,
 * `{"error": {"message", "type", "param", "code"}}`, with the HTTP status of the catalogue, so the
 * official clients raise their usual exceptions. The engine's rules are worded here in the
 * terms of a chat request (messages, tool_call_id), from the data the engine attaches.
 */

function typeFor(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** A field the engine names in its own terms, named as the chat request has it. */
function chatParam(param: string | null): string | null {
  if (param === null) return null;
  if (param === 'tool_choice.name') return 'tool_choice.function.name';
  const allowed = /^tool_choice\.tools\[(\d+)\]\.name$/.exec(param);
  if (allowed) return `tool_choice.allowed_tools.tools[${allowed[1]}].function.name`;
  // Tool declarations: the engine's `tools[2].parameters` is the request's `tools[2].function.parameters`.
  return param.replace(/^tools\[(\d+)\]\.(?=(?:name|description|parameters)\b)/, 'tools[$1].function.');
}

function chatMessage(error: BatonError): string {
  const data = error.data;
  const text = (key: string): string => String(data[key] ?? '');
  const list = (key: string): string[] => (Array.isArray(data[key]) ? (data[key] as string[]) : []);
  const decide = (ids: string[]) => ids.map((id) => `POST /v1/tool-calls/${id}/decision`).join(', ');
  switch (error.code) {
    case 'model_not_found':
      return 'model' in data
        ? `The model '${text('model')}' does not exist: name one of this app's agents or a provider model ` +
            `such as 'scripted:auto' or 'openai:gpt-4o-mini' (GET /v1/models lists them).`
        : error.message;
    case 'model_mismatch':
      return (
        `model '${text('model')}' is not the model of conversation '${text('conversation_id')}' ` +
        `('${text('conversation_agent')}'), whose tool calls this request answers: a conversation keeps its agent. ` +
        `Send the same model as the request that received those tool_calls.`
      );
    case 'invalid_tool_call_id':
      return 'conversation_id' in data
        ? `${error.param ?? 'messages'} '${text('call_id')}' is not a tool call of conversation '${text('conversation_id')}', ` +
            `whose pending calls (${list('pending_call_ids').join(', ') || 'none'}) the other tool messages answer: ` +
            `a request answers the calls of one reply. Send the tool messages of the last assistant message only.`
        : error.message;
    case 'missing_tool_results':
      return (
        `The run waits for the results of ${list('pending_call_ids').join(', ')}; the messages answer only some ` +
        `of them (missing: ${list('missing_call_ids').join(', ')}). Send one tool message per tool call of the last ` +
        `assistant message, or answer them one at a time with POST /v1/tool-calls/{id}/result.`
      );
    case 'server_executed_call':
      return data['awaiting_approval'] === true
        ? `${error.param ?? 'messages'} answers call '${text('call_id')}' (tool '${text('tool_name')}'), which Baton runs itself ` +
            `once a person approves it: decide it with ${decide([text('call_id')])} instead of sending a result.`
        : `${error.param ?? 'messages'} answers call '${text('call_id')}' (tool '${text('tool_name')}'), which Baton runs itself: ` +
            `it needs no tool message.`;
    case 'approvals_pending':
      return (
        `${error.message} Send the tool messages alone now; once the approvals are decided, send the next user ` +
        `message.`
      );
    case 'thread_busy':
    case 'concurrent_update':
      return (
        `Another request is running in the same conversation${'conversation_id' in data ? ` ('${text('conversation_id')}')` : ''} ` +
        `right now (for example the run an approval resumed): wait a moment, then send the request again.`
      );
    default:
      return error.message;
  }
}

export function chatErrorBody(error: BatonError): JsonObject {
  const code = error.code === 'agent_not_found' ? 'model_not_found' : error.code;
  const param =
    error.code === 'agent_not_found'
      ? 'model'
      : // The engine names a Threads message's `content`; here the results are tool messages.
        error.code === 'missing_tool_results'
        ? 'messages'
        : chatParam(error.param);
  return {
    error: {
      message: chatMessage(error),
      type: typeFor(error.status),
      param,
      code,
      ...(error.details as JsonObject),
    },
  };
}

export const renderChatError: ErrorRenderer = (error) => ({ status: error.status, body: chatErrorBody(error) });
