import { abortError } from '../errors.ts';
import { linkSignal, whenAborted } from '../http/signals.ts';
import type { ToolContext } from '../tools/define-tool.ts';
import type { RunCall } from './run-types.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** What one handler produced, ready to be sent in the face's format. */
export interface HandlerOutcome {
  call: RunCall;
  /** The text sent; undefined for an empty result (the handler returned nothing). */
  content: string | undefined;
  /** What the handler returned (for faces that send structured results, such as CES), or the error text. */
  value: unknown;
  isError: boolean;
  durationMs: number;
}

export interface HandlerSettings {
  registry: ToolRegistry;
  handlerTimeoutMs: number;
  /** The run's signal: when it aborts, the whole batch rejects (nothing is sent). */
  signal: AbortSignal | undefined;
  context: Pick<ToolContext, 'threadId' | 'face'>;
}

export const DEFAULT_HANDLER_TIMEOUT_MS = 60_000;

class HandlerTimeout extends Error {
  constructor(
    readonly toolName: string,
    readonly ms: number,
  ) {
    super(`Tool '${toolName}' did not answer within ${ms} ms; the client gave up on it (handler timeout).`);
    this.name = 'TimeoutError';
  }
}

/**
 * Runs every call of a step at once, as the seeds require (one results message per step), and
 * never lets one handler's failure sink the others: a throw, a timeout or a missing handler each
 * becomes an error result for that call alone. Only an abort of the run rejects the batch.
 */
export async function runHandlers(calls: readonly RunCall[], settings: HandlerSettings): Promise<HandlerOutcome[]> {
  return Promise.all(calls.map((call) => runHandler(call, settings)));
}

function failure(call: RunCall, message: string, started: number): HandlerOutcome {
  return { call, content: message, value: message, isError: true, durationMs: Date.now() - started };
}

/** A string goes as is, nothing as an empty result, anything else as JSON. */
function contentOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

async function runHandler(call: RunCall, settings: HandlerSettings): Promise<HandlerOutcome> {
  const started = Date.now();
  const tool = settings.registry.get(call.name);
  if (!tool) {
    const names = settings.registry.names();
    return failure(
      call,
      `The client has no handler for tool '${call.name}' (handlers: ${names.length > 0 ? names.join(', ') : 'none'}); the call was not run.`,
      started,
    );
  }
  const limit = tool.timeoutMs ?? settings.handlerTimeoutMs;
  const link = linkSignal(settings.signal);
  const aborted = whenAborted(link.signal);
  const timer =
    Number.isFinite(limit) && limit > 0
      ? setTimeout(() => link.abort(new HandlerTimeout(call.name, limit)), limit)
      : undefined;
  const context: ToolContext = { ...settings.context, callId: call.id, toolName: call.name, signal: link.signal };
  try {
    // `then` makes a handler that throws synchronously fail like an async one.
    const value = await Promise.race([
      Promise.resolve().then(() => tool.handler(call.input as Record<string, unknown>, context)),
      aborted.promise,
    ]);
    let content: string | undefined;
    try {
      content = contentOf(value);
    } catch (error) {
      return failure(
        call,
        `Tool '${call.name}' returned a value that cannot be sent as JSON: ${messageOf(error)}`,
        started,
      );
    }
    return { call, content, value, isError: false, durationMs: Date.now() - started };
  } catch (error) {
    if (settings.signal?.aborted) throw abortError(settings.signal);
    const reason: unknown = link.signal.reason;
    if (link.signal.aborted && reason instanceof HandlerTimeout) return failure(call, reason.message, started);
    return failure(call, messageOf(error) || `Tool '${call.name}' failed.`, started);
  } finally {
    clearTimeout(timer);
    aborted.dispose();
    link.dispose();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
