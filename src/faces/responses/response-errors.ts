import { BatonError } from '../../domain/errors/baton-error.ts';
import type { FinishReason, TurnStatus } from '../../domain/records.ts';
import { responseStatus } from './response-views.ts';

/** OpenAI's error body: `{error:{message,type,param,code}}` (the `openai` SDK maps on the HTTP status). */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null; [detail: string]: unknown };
}

function typeFor(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** The engine speaks of a Threads message's `tool_call_id`; here the same field is an item's `call_id`. */
function responsesParam(param: string | null): string | null {
  return param === null ? null : param.replace(/\.tool_call_id$/, '.call_id').replace(/^content$/, 'input');
}

/**
 * Rewords the engine's rules in the Responses dialect, with OpenAI's own messages where they
 * exist, so clients written against OpenAI recognise them. The rule itself stays the engine's.
 */
export function toResponsesError(error: BatonError): BatonError {
  const param = responsesParam(error.param);
  const ids = (key: string): string[] => (Array.isArray(error.details[key]) ? (error.details[key] as string[]) : []);
  switch (error.code) {
    case 'invalid_tool_call_id': {
      const callId = String(error.data['call_id'] ?? '');
      return new BatonError(
        'tool_output_without_call',
        `No tool call found for function call output with call_id ${callId}.`,
        { param, details: error.details },
      );
    }
    case 'missing_tool_results':
      return new BatonError(
        'tool_call_without_output',
        `No tool output found for function call ${ids('missing_tool_call_ids').join(', ')}.`,
        {
          param: 'input',
          details: error.details,
        },
      );
    case 'thread_busy':
    case 'concurrent_update':
      // Two requests continued the same response at once; the other one won.
      return new BatonError(
        error.code,
        'Another request is continuing the same conversation right now; wait for its response, then continue from it.',
        {
          param: 'previous_response_id',
        },
      );
    case 'agent_not_found':
      return new BatonError('model_not_found', error.message, { param: 'model' });
    default: {
      const message = responsesMessage(error);
      return param === error.param && message === error.message
        ? error
        : new BatonError(error.code, message, { param, details: error.details, data: error.data });
    }
  }
}

export function responsesErrorBody(error: BatonError): OpenAIErrorBody {
  const translated = toResponsesError(error);
  const details = translated.details;
  return {
    error: {
      message: translated.message,
      type: typeFor(translated.status),
      param: translated.param,
      code: translated.code,
      ...details,
    },
  };
}

/** The engine's response-chain rules in the words of the Responses API, built from their data. */
function responsesMessage(error: BatonError): string {
  const data = error.data;
  const text = (key: string): string => String(data[key] ?? '');
  const list = (key: string): string[] => (Array.isArray(data[key]) ? (data[key] as string[]) : []);
  const previous = text('response_id');
  switch (error.code) {
    case 'previous_response_not_found':
      return `Previous response with id '${previous}' not found.`;
    case 'missing_model':
      return 'model is required: name an agent or a provider model such as scripted:auto.';
    case 'model_not_found':
      return 'model' in data
        ? `The model '${text('model')}' does not exist: name one of this app's agents (GET /v1/agents) ` +
            `or a provider model such as 'scripted:auto' or 'openai:gpt-4o-mini'.`
        : error.message;
    case 'model_mismatch':
      return (
        `model '${text('model')}' differs from the model of previous response '${previous}' ('${text('previous_model')}'): ` +
        `a conversation keeps its agent. Omit model, or start a new conversation.`
      );
    case 'previous_response_not_latest': {
      const latest = text('latest_response_id');
      return (
        `Previous response '${previous}' is not the latest of its conversation: '${latest}' is, and ` +
        `it waits for the outputs of ${list('pending_call_ids').join(', ')}. Continue from '${latest}' ` +
        `with those outputs, or cancel it (POST /v1/responses/${latest}/cancel) first.`
      );
    }
    case 'response_already_continued':
      return (
        `Previous response '${previous}' was already continued by '${text('continued_by')}', which ` +
        `answered its tool calls; a call is answered once. Continue from the latest response, '${text('latest_response_id')}'.`
      );
    case 'previous_response_in_progress':
      return `Previous response '${previous}' is still in progress; wait for it to finish (GET /v1/responses/${previous}) before continuing it.`;
    case 'approvals_pending': {
      if (!previous) return error.message;
      const approvals = list('approval_ids');
      const clientCalls = list('client_call_ids');
      const decide = approvals.map((id) => `POST /v1/tool-calls/${id}/decision`).join(', ');
      const then =
        clientCalls.length > 0
          ? `then continue from '${previous}' with the function_call_output items of ${clientCalls.join(', ')}.`
          : `the turn then resumes by itself: read its outcome with GET /v1/responses/${previous}.`;
      return `Response '${previous}' waits for a person to approve ${approvals.join(', ')} (${decide}); ${then}`;
    }
    case 'unexpected_function_call':
      return (
        `${error.param} is a function_call; with previous_response_id send only function_call_output ` +
        `items (and messages): the calls are already in the conversation.`
      );
    case 'tool_call_without_output':
      return 'missing_call_ids' in data
        ? `No tool output found for function call ${list('missing_call_ids').join(', ')}.`
        : error.message;
    case 'server_executed_call': {
      const what = `${error.param} is a function_call_output for call '${text('call_id')}' (tool '${text('tool_name')}'), which Baton executes itself`;
      const only = 'Send function_call_output only for function_call items, not for baton:tool_call items.';
      return data['awaiting_approval'] === true
        ? `${what} once a person approves it (POST /v1/tool-calls/${text('call_id')}/decision); it needs no output. ${only}`
        : `${what}: it already ran and its result is in the conversation (the baton:tool_result item), so it needs no output. ${only}`;
    }
    case 'response_not_cancellable': {
      if (!previous) return error.message;
      const status = responseStatus(
        {
          status: data['turn_status'] as TurnStatus,
          finishReason: (data['finish_reason'] ?? null) as FinishReason | null,
        },
        data['continued'] === true,
      );
      return `Response '${previous}' cannot be cancelled: it is ${status}, with nothing running or waiting for tool outputs.`;
    }
    case 'item_not_found':
      return 'item_id' in data
        ? `${error.param} references item '${text('item_id')}', which does not exist in this app (item ` +
            `ids are the ids of output and input items: msg_…, rs_…, fc_…, fco_…, btc_…, btr_…).`
        : error.message;
    default:
      return error.message;
  }
}
