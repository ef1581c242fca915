import { BatonError } from '../../domain/errors/baton-error.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import { createResponseBody, type CreateResponseBody } from './response-wire.ts';

/** Item types whose `output` is the result of a call: a string, or an array of content parts. */
const OUTPUT_ITEMS = new Set(['function_call_output', 'baton:tool_result']);

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * The seed's most common mistake, `"output": {"temperature": 18}`: the result sent as a JSON
 * value instead of a string. The shape check would only say its union failed ("Invalid input");
 * this says what to do, naming the field, in OpenAI's words for the same mistake.
 */
function refuseUnserializedOutputs(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const input = (body as { input?: unknown }).input;
  if (!Array.isArray(input)) return;
  input.forEach((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || !('output' in item)) return;
    const { type, output } = item as { type?: unknown; output: unknown };
    if (typeof type !== 'string' || !OUTPUT_ITEMS.has(type)) return;
    if (typeof output === 'string' || Array.isArray(output) || output === undefined) return;
    const param = `input[${index}].output`;
    throw new BatonError(
      'tool_output_not_string',
      `Invalid type for '${param}': expected a string, but got ${kindOf(output)} instead. ` +
        `A ${type}'s output is the function's result as a string: JSON.stringify the result ` +
        `(json.dumps in Python), e.g. "output": "{\\"temperature\\": 18}".`,
      { param },
    );
  });
}

/** A create request (`POST /v1/responses`, or a WebSocket `response.create` message), checked and typed. */
export function parseCreateBody(body: unknown, what = 'request body'): CreateResponseBody {
  refuseUnserializedOutputs(body);
  return parseRequest(createResponseBody, body, what);
}
