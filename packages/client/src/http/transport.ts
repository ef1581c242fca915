import { abortError, BatonConnectionError, BatonError, BatonTimeoutError } from '../errors.ts';
import { randomIdempotencyKey } from './idempotency-key.ts';
import { parseErrorBody } from './parse-error.ts';
import {
  backoffMs,
  isKeyInUse,
  isNetworkFault,
  isRetryableStatus,
  retryAfterOf,
  type RetrySettings,
} from './retry-policy.ts';
import { linkSignal, sleep } from './signals.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportSettings {
  baseURL: string;
  apiKey: string;
  fetch: FetchLike;
  retry: RetrySettings;
  timeoutMs: number;
  headers: Record<string, string>;
}

export type QueryValue = string | number | boolean | undefined | null;

export interface RequestOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  /** POSTs always carry one: given here (a derived key), or a fresh one shared by all attempts. */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  headers?: Record<string, string> | undefined;
}

/** An open streaming response; `close()` stops its timeout and releases the connection. */
export interface OpenStream {
  response: Response;
  /** The key the request was sent with, so a caller can repeat it after the stream broke. */
  idempotencyKey: string | undefined;
  close(): void;
}

class Timeout extends Error {}

/**
 * JSON over fetch with Baton's conventions: Bearer auth, an Idempotency-Key on every POST,
 * errors as `BatonError`, retries of network faults and of 408/429/502/503/504 with back-off,
 * waiting out a 409 "key in use" (the first attempt still running), a timeout per request.
 */
export class Transport {
  constructor(readonly settings: TransportSettings) {}

  url(path: string, query?: Record<string, QueryValue>): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {}))
      if (value !== undefined && value !== null) params.set(key, String(value));
    const search = params.toString();
    return `${this.settings.baseURL}${path}${search ? `?${search}` : ''}`;
  }

  /** A JSON request; resolves with the parsed body of a 2xx answer. */
  async json<T>(options: RequestOptions): Promise<T> {
    return (await this.send(options, 'application/json', false, async (response) =>
      parseJson(await response.text()),
    )) as T;
  }

  /** A request whose 2xx body the caller reads as a stream (SSE); error answers are still parsed and retried. */
  async stream(options: RequestOptions): Promise<OpenStream> {
    let close = (): void => {};
    const response = await this.send(options, 'text/event-stream, application/json', true, async (res, release) => {
      close = release;
      return res;
    });
    return { response, idempotencyKey: this.keyOf(options), close };
  }

  private keyOf(options: RequestOptions): string | undefined {
    if (options.method !== 'POST') return undefined;
    options.idempotencyKey ??= randomIdempotencyKey();
    return options.idempotencyKey;
  }

  private async send<T>(
    options: RequestOptions,
    accept: string,
    keepOpen: boolean,
    read: (response: Response, release: () => void) => Promise<T>,
  ): Promise<T> {
    const { retry } = this.settings;
    const key = this.keyOf(options);
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const started = Date.now();
    let retries = 0;
    let waits = 0;
    for (;;) {
      if (options.signal?.aborted) throw abortError(options.signal);
      const link = linkSignal(options.signal);
      const timer =
        Number.isFinite(timeoutMs) && timeoutMs > 0
          ? setTimeout(() => link.abort(new Timeout()), timeoutMs)
          : undefined;
      let handedOver = false;
      const release = (): void => {
        clearTimeout(timer);
        link.dispose();
      };
      let delay: number;
      try {
        const response = await this.settings.fetch(this.url(options.path, options.query), {
          method: options.method,
          headers: this.headers(options, accept, key),
          ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
          signal: link.signal,
        });
        if (response.ok) {
          // A JSON body is read here, under the timeout; a stream keeps its timer until the caller closes it.
          const value = await read(response, release);
          handedOver = keepOpen;
          return value;
        }
        const error = parseErrorBody(
          response.status,
          parseJson(await response.text()),
          response.headers.get('x-request-id'),
        );
        const replayed = response.headers.get('idempotent-replayed') === 'true';
        if (isKeyInUse(error) && Date.now() - started < timeoutMs) {
          // The first attempt is still running server-side and may finish any moment: short waits.
          delay = Math.min(2_000, Math.max(50, retry.baseDelayMs / 2) * 2 ** waits++);
        } else if (isRetryableStatus(error, replayed) && retries < retry.maxRetries) {
          delay = backoffMs(retries++, retry, retryAfterOf(response.headers));
        } else {
          throw error;
        }
      } catch (error) {
        if (error instanceof BatonError) throw error;
        if (options.signal?.aborted) throw abortError(options.signal);
        if (link.signal.aborted && link.signal.reason instanceof Timeout) {
          throw new BatonTimeoutError(
            `${options.method} ${options.path} got no complete answer within ${timeoutMs} ms (timeoutMs).`,
          );
        }
        if (!isNetworkFault(error)) throw error;
        if (retries >= retry.maxRetries) {
          throw new BatonConnectionError(
            `${options.method} ${options.path} failed: ${describe(error)} (after ${retries + 1} attempts).`,
            { cause: error },
          );
        }
        delay = backoffMs(retries++, retry, null);
      } finally {
        if (!handedOver) release();
      }
      await sleep(delay, options.signal);
    }
  }

  private headers(options: RequestOptions, accept: string, key: string | undefined): Record<string, string> {
    return {
      accept,
      authorization: `Bearer ${this.settings.apiKey}`,
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(key !== undefined ? { 'idempotency-key': key } : {}),
      ...this.settings.headers,
      ...options.headers,
    };
  }
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** "fetch failed" says little; the cause ("other side closed", ECONNREFUSED) says what happened. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
