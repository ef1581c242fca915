import { BatonError } from '../../domain/errors/baton-error.ts';

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
    default:
      return param === error.param
        ? error
        : new BatonError(error.code, error.message, { param, details: error.details, data: error.data });
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
