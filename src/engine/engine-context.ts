import type { Store } from '../store/store.ts';
import type { Clock } from '../domain/clock.ts';
import type { IdGenerator } from '../domain/ids.ts';

import type { ModelResolver } from './ports/model-resolver.ts';
import type { ToolProvider } from './ports/tool-provider.ts';
import type { EngineTelemetry } from './ports/telemetry.ts';
import type { TurnSlots } from './turn-slots.ts';
import type { EngineLogIds } from './engine-log-ids.ts';
import type { RunOpening } from './run-opening.ts';

export interface EngineLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
  /**
   * The turn a run works on, for the lines of whatever asked for it: the server adds the ids to
   * the log lines of the request that started or resumed the turn. Optional: tests log nothing.
   */
  tag?(ids: EngineLogIds): void;
}

export interface EngineSettings {
  /** Retries of a failing model call (exponential backoff, by the AI SDK) before the turn fails. */
  maxModelRetries: number;
  /** Model steps in a row that may produce only invalid calls before the turn fails. */
  maxInvalidCallRounds: number;
  /**
   * The turn lease: an `in_progress` turn not renewed for this long is considered orphaned by a
   * dead process, and another process takes it over.
   */
  staleTurnSeconds: number;
  /** Takeovers of one turn before a stale turn is failed instead (0: always fail it). */
  maxTurnTakeovers: number;
  /** Turns of one app whose loop may run in this process at once; new turns past it get `too_many_turns`. */
  turnsPerApp: number;
  /** Turns of all apps whose loop may run in this process at once. */
  turnsTotal: number;
  /**
   * How long the opening of a run whose caller waits without events may stay unwritten while its
   * first model step runs (see `RunOpening`); 0 writes every opening before the model is asked.
   */
  deferredOpeningMs: number;
  /**
   * The deadline of calls the client answers in Responses conversations when neither their tool
   * nor their agent gives one (`responses.tool_timeout_seconds`); null: no deadline. Absent: the
   * default of `src/engine/responses/response-deadlines.ts`.
   */
  responsesToolTimeoutSeconds?: number | null;
}

/** What every part of the engine shares. Built once by `createEngine`. */
export interface EngineContext {
  store: Store;
  models: ModelResolver;
  /** The app's tools: definitions per agent, and the runner of server-executed calls. */
  tools: ToolProvider;
  /** Hooks around turn runs, model steps and tool runs (traces, metrics); a no-op when both are off. */
  telemetry: EngineTelemetry;
  clock: Clock;
  newId: IdGenerator;
  settings: EngineSettings;
  logger: EngineLogger;
  /** Abort handles of turns running in this process, so cancel stops the model call at once. */
  running: Map<string, AbortController>;
  /** Work started without a caller waiting on it (resumes by the sweeper, queued input). */
  background: Set<Promise<unknown>>;
  /** The running turns of this process, per app, under `turnsPerApp` and `turnsTotal`. */
  turns: TurnSlots;
  /** Runs of this process whose opening may still be unwritten, by conversation id (see `RunOpening`). */
  openings: Map<string, RunOpening>;
}

/** The last instant written as text: a request asks for the time a dozen times within one millisecond. */
let lastIso = { ms: Number.NaN, text: '' };

export function nowIso(context: EngineContext): string {
  const now = context.clock.now();
  const ms = now.getTime();
  if (ms !== lastIso.ms) lastIso = { ms, text: now.toISOString() };
  return lastIso.text;
}

/** Starts work nobody awaits, keeping a handle so shutdown can wait for it and failures are logged. */
export function runInBackground(context: EngineContext, label: string, work: () => Promise<unknown>): void {
  const promise = work()
    .catch((error: unknown) => context.logger.error({ err: error, label }, 'background engine work failed'))
    .finally(() => context.background.delete(promise));
  context.background.add(promise);
}
