import { DEFAULT_RETRY } from './http/retry-policy.ts';
import { Transport, type FetchLike } from './http/transport.ts';
import { Agents } from './resources/agents.ts';
import { ApiKeys, Apps } from './resources/api-keys.ts';
import { CesSessions } from './resources/ces-sessions.ts';
import { Responses } from './resources/responses.ts';
import { Threads } from './resources/threads.ts';
import { ToolCalls } from './resources/tool-calls.ts';
import { Webhooks } from './resources/webhooks.ts';
import { Workers } from './workers/workers.ts';
import { callSettings, type CallOptions } from './resources/call-options.ts';
import type { Principal } from './wire/common.ts';

export interface BatonOptions {
  /** The server, e.g. `http://127.0.0.1:8080` (a trailing `/v1` or `/` is fine). Default: `BATON_URL`, else http://127.0.0.1:8080. */
  baseURL?: string;
  /** An API key of the server. Default: `BATON_API_KEY`. */
  apiKey?: string;
  /** Retries of network faults and 408/429/502/503/504 (default 2). */
  maxRetries?: number;
  /** First back-off between retries (default 500 ms; doubles, with jitter, up to 8 s). */
  retryDelayMs?: number;
  /** Time limit of each request (default 10 minutes: a turn may run a long model call). */
  timeoutMs?: number;
  /** How often runs look again while someone else decides an approval (default 1000 ms). */
  pollIntervalMs?: number;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** A fetch to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: FetchLike;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** Environment variables when running in Node (or anything with `process.env`); nothing in a browser. */
function env(name: string): string | undefined {
  const process = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const value = process?.env?.[name];
  return value === undefined || value === '' ? undefined : value;
}

/** `http://host:8080/v1/` → `http://host:8080`: paths below always start with `/v1/`. */
export function normalizeBaseURL(url: string): string {
  return url.trim().replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * Baton's client. `threads`, `toolCalls`, `agents`, `responses` and `ces.sessions` mirror the
 * API; `threads.run`, `responses.run` and `ces.sessions.run` run the client-executed tool loop;
 * `workers.run` runs a fleet answering the calls of worker tools.
 *
 * ```ts
 * const baton = new Baton({ baseURL, apiKey });
 * const answer = await baton.threads.run(threadId, 'I need approval to process a $500 refund', {
 *   tools: { request_approval: async (input, ctx) => ({ approved: true, approved_by: 'm@x.com' }) },
 * });
 * answer.text;
 * ```
 */
export class Baton {
  readonly threads: Threads;
  readonly toolCalls: ToolCalls;
  readonly agents: Agents;
  readonly responses: Responses;
  readonly ces: { readonly sessions: CesSessions };
  /** The app's API keys (app admin keys; operators pass `app_id` for another app). */
  readonly apiKeys: ApiKeys;
  /** Creating apps (operator keys). */
  readonly apps: Apps;
  /** Webhook endpoints and their deliveries (app admin keys); check what arrives with `verifyWebhook`. */
  readonly webhooks: Webhooks;
  /** Tool workers: claim, run and answer the calls of tools marked `"executor": "worker"`. */
  readonly workers: Workers;
  /** The HTTP layer (auth, retries, idempotency keys), for requests the SDK has no method for. */
  readonly http: Transport;

  constructor(options: BatonOptions = {}) {
    const apiKey = options.apiKey ?? env('BATON_API_KEY');
    if (!apiKey) throw new TypeError('Baton needs an API key: pass { apiKey } or set BATON_API_KEY.');
    this.http = new Transport({
      baseURL: normalizeBaseURL(options.baseURL ?? env('BATON_URL') ?? DEFAULT_BASE_URL),
      apiKey,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      retry: {
        ...DEFAULT_RETRY,
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
        ...(options.retryDelayMs !== undefined ? { baseDelayMs: options.retryDelayMs } : {}),
      },
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      headers: options.headers ?? {},
    });
    const defaults = { pollIntervalMs: options.pollIntervalMs ?? 1_000 };
    this.toolCalls = new ToolCalls(this.http);
    this.threads = new Threads(this.http, this.toolCalls, defaults);
    this.agents = new Agents(this.http);
    this.responses = new Responses(this.http, this.toolCalls, defaults);
    this.ces = { sessions: new CesSessions(this.http, this.toolCalls, this.threads, defaults) };
    this.apiKeys = new ApiKeys(this.http);
    this.apps = new Apps(this.http);
    this.webhooks = new Webhooks(this.http);
    this.workers = new Workers(this.toolCalls);
  }

  /** The key's app and role (`GET /v1/me`); the app's `resource_name` is the parent of its CES sessions. */
  me(options?: CallOptions): Promise<Principal> {
    return this.http.json({ method: 'GET', path: '/v1/me', ...callSettings(options) });
  }
}
