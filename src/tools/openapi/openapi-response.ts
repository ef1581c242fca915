/**
 * An HTTP response → the text a model sees. JSON is re-serialised compactly (whitespace costs
 * tokens, not information); text is passed through; anything else is described, not dumped, since
 * bytes of an image or a PDF mean nothing to a model as text. Bodies beyond the cap end with a
 * visible marker so the model knows it saw only part. Non-2xx answers become error results
 * carrying the status and the start of the body, which is usually the API's own explanation.
 */
import { STATUS_CODES } from 'node:http';
import type { OpenApiOperationTool } from './openapi-operations.ts';
import type { IncomingResponse, JsonValue, OpenApiResponse, ToolOutput } from './openapi-types.ts';
import { dropUnknownFields } from './openapi-unknown-fields.ts';

export interface ToolOutputOptions {
  /** The response size cap; bodies beyond it are cut and marked. */
  maxBytes: number;
  /** Drop response fields the response schema does not describe. */
  ignoreUnknownFields?: boolean;
}

/** How much of an error body goes into the message: enough for the API's explanation. */
export const ERROR_EXCERPT_CHARS = 2_000;

const TEXTUAL =
  /^(text\/|application\/([\w.+-]+\+)?(json|xml|yaml|x-yaml|javascript|graphql|x-www-form-urlencoded|x-ndjson)$)/;

function header(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

function decode(bytes: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes); // a charset label TextDecoder does not know
  }
}

/** The documented response for a status: exact code, then `4XX`-style ranges, then `default`. */
export function responseFor(responses: Record<string, OpenApiResponse>, status: number): OpenApiResponse | undefined {
  const range = `${Math.floor(status / 100)}xx`;
  const rangeKey = Object.keys(responses).find((key) => key.toLowerCase() === range);
  return responses[String(status)] ?? (rangeKey === undefined ? undefined : responses[rangeKey]) ?? responses.default;
}

function schemaFor(responses: Record<string, OpenApiResponse>, status: number, mediaType: string): unknown {
  const content = responseFor(responses, status)?.content ?? {};
  const key =
    Object.keys(content).find((type) => type.toLowerCase() === mediaType) ??
    Object.keys(content).find((type) => /json/i.test(type));
  return key === undefined ? undefined : content[key]?.schema;
}

/** Maps one response of `operation` to a tool output; see the module comment. */
export function toToolOutput(
  response: IncomingResponse,
  operation: Pick<OpenApiOperationTool, 'responses'>,
  options: ToolOutputOptions,
): ToolOutput {
  const contentType = header(response.headers, 'content-type') ?? '';
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  const charset = /charset="?([^";]+)"?/i.exec(contentType)?.[1];
  const truncated = response.truncated || response.body.length > options.maxBytes;
  const bytes = response.body.subarray(0, options.maxBytes);
  const marker = `… [truncated: response larger than ${options.maxBytes} bytes]`;
  const ok = response.status >= 200 && response.status < 300;
  const statusLine = `HTTP ${response.status} ${STATUS_CODES[response.status] ?? ''}`.trimEnd();

  let text: string;
  const isJson = /^application\/([\w.+-]+\+)?json$/.test(mediaType);
  // No content type at all: treat the body as text when it looks like text.
  const isText = TEXTUAL.test(mediaType) || (mediaType === '' && !bytes.includes(0));
  if (bytes.length === 0) {
    text = ok ? `${statusLine}: empty response body` : statusLine;
    return { isError: !ok, text };
  }
  if (!isText) {
    const size = truncated ? `more than ${options.maxBytes} bytes` : `${bytes.length} bytes`;
    text = `[binary response: ${mediaType || 'unknown type'}, ${size}]`;
  } else {
    text = decode(bytes, charset);
    if (truncated)
      text = text.replace(/\uFFFD+$/, ''); // a multi-byte character cut in half
    else if (isJson) {
      try {
        let value = JSON.parse(text) as JsonValue;
        if (ok && options.ignoreUnknownFields === true)
          value = dropUnknownFields(value, schemaFor(operation.responses, response.status, mediaType));
        text = JSON.stringify(value);
      } catch {
        // Not JSON after all: the text as it came is still the best answer.
      }
    }
    if (truncated) text += marker;
  }
  if (ok) return { isError: false, text };
  const excerpt = text.length > ERROR_EXCERPT_CHARS ? `${text.slice(0, ERROR_EXCERPT_CHARS)}…` : text;
  return { isError: true, text: `${statusLine}: ${excerpt}` };
}
