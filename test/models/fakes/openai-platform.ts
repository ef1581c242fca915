import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isMalformedJson, writeJson } from './fake-http-server.ts';
import type { FakeRequestHandler } from './fake-http-server.ts';
import type { Rejection } from './provider-fake.ts';

/**
 * What OpenAI's two APIs (Responses, Chat Completions) have in common, shared by their two fakes: the
 * error envelope and the wording of the platform-wide refusals (quoted from error bodies OpenAI
 * returned, as found in public bug reports), the bearer key and model checks, and the way one route
 * is served so that anything thrown becomes an enveloped, recorded refusal. Each API's own rules and
 * wording stay in its fake.
 */

/** An error answered in OpenAI's envelope. */
export class OpenAIError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type = 'invalid_request_error',
  ) {
    super(message);
  }

  body(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** OpenAI's 400 for a required field that is absent, e.g. `missingParameter("input[0].call_id")`. */
export function missingParameter(param: string): OpenAIError {
  return new OpenAIError(400, `Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

const MISSING_KEY_MESSAGE =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: " +
  "Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a " +
  'username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.';

export const INVALID_JSON_MESSAGE =
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API " +
  'expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us ' +
  'through our help center at help.openai.com.)';

/** Requires a non-empty bearer key, and exactly `expected` when one is configured (OpenAI's 401s). */
export function checkBearerKey(headers: IncomingMessage['headers'], expected: string | undefined): void {
  const auth = headers.authorization;
  const key = typeof auth === 'string' && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, '').trim() : '';
  if (key === '') throw new OpenAIError(401, MISSING_KEY_MESSAGE);
  if (expected != null && key !== expected) {
    const shown = key.length > 8 ? `${key.slice(0, 3)}*********${key.slice(-4)}` : key;
    throw new OpenAIError(
      401,
      `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      null,
      'invalid_api_key',
    );
  }
}

/** OpenAI's 404 `model_not_found` for a model outside `models`, when the fake was given a list. */
export function checkModelAvailable(model: string, models: string[] | undefined): void {
  if (models != null && !models.includes(model)) {
    throw new OpenAIError(
      404,
      `The model \`${model}\` does not exist or you do not have access to it.`,
      null,
      'model_not_found',
    );
  }
}

const ALPHANUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Random letters and digits, as in OpenAI's `call_…` and `chatcmpl-…` ids. */
export function randomAlphanumeric(length: number): string {
  let out = '';
  for (const byte of randomBytes(length)) out += ALPHANUM[byte % ALPHANUM.length];
  return out;
}

/**
 * Serves `POST {route}`: any other method or path is OpenAI's 404 `Invalid URL`, an unparsable body
 * its 400, and otherwise `answer` runs. Whatever `answer` throws is sent in OpenAI's envelope (an
 * `OpenAIError` as is, anything else as a 500 `server_error`) and recorded in `rejections`; once a
 * stream has started, the response is only ended.
 */
export function serveOpenAIRoute(
  route: string,
  rejections: Rejection[],
  answer: (body: unknown, req: IncomingMessage, res: ServerResponse) => void,
): FakeRequestHandler {
  return (recorded, raw, req, res) => {
    try {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'POST' || path !== route) {
        throw new OpenAIError(404, `Invalid URL (${req.method ?? 'GET'} ${path ?? '/'})`);
      }
      if (isMalformedJson(recorded, raw)) throw new OpenAIError(400, INVALID_JSON_MESSAGE);
      answer(recorded.body, req, res);
    } catch (error) {
      const failure =
        error instanceof OpenAIError
          ? error
          : new OpenAIError(
              500,
              `The server had an error processing your request. (${String(error)})`,
              null,
              null,
              'server_error',
            );
      const payload = failure.body();
      rejections.push({ request: recorded, status: failure.status, body: payload });
      if (!res.headersSent) writeJson(res, failure.status, payload);
      else res.end();
    }
  };
}
