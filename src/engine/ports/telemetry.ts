import type { AgentDefinition, FinishReason, LedgerEntryRecord, TurnRecord, TurnUsage } from '../../domain/records.ts';

/** What set a run of the agent loop going: a new turn's input, the results that resume a paused one, or a takeover of a silent one. */
export type TurnRunKind = 'start' | 'resume' | 'takeover';

/**
 * Who runs a tool call in Baton: a server tool during a step (or again after a takeover), an
 * approved call once its decision came, a client function's fake.
 */
export type ToolRunKind = 'server' | 'approved' | 'fake';

/** What a tool run ends with, as the hooks see it (null: a fake left the call to the client). */
export type ToolRunResult = { isError: boolean; faked?: boolean } | null;

/**
 * Hooks around what the engine does, for traces and metrics (the server implements them, loading
 * OpenTelemetry or prom-client only when configured). Each hook wraps the work it measures, so an
 * implementation can time it, see how it ended, and make it the active context of whatever runs
 * inside (an HTTP call of a server tool becomes a child of its tool run). `NO_TELEMETRY` runs the
 * work and nothing else: with telemetry off the engine pays one call and the closure it passes.
 *
 * The arguments are records the engine has at hand anyway, never built for the hooks; the turn
 * they belong to (`turn`, or `entry.turnId`) tells an implementation which run a step or a tool
 * run is part of, without a context carried through every promise.
 */
export interface EngineTelemetry {
  /**
   * One run of the agent loop for `turn`, until it hands control back (paused, ended, failed).
   * `turnCalls`: for a resume, the turn's ledger rows as answered; `callsPausedOn` picks the
   * calls it paused on, each with the trace context of the run that paused on it
   * (`LedgerEntryRecord.traceContext`), which may be another process's. Empty otherwise.
   */
  turnRun<T extends { turn: TurnRecord }>(
    kind: TurnRunKind,
    turn: TurnRecord,
    agent: AgentDefinition,
    turnCalls: readonly LedgerEntryRecord[],
    run: () => Promise<T>,
  ): Promise<T>;
  /** One model step of `turn`'s run on `model` (`provider:model-id`), with the usage and finish reason it reports. */
  modelStep<T extends { usage: TurnUsage; finishReason: FinishReason }>(
    turn: TurnRecord,
    model: string,
    step: () => Promise<T>,
  ): Promise<T>;
  /** One tool call Baton runs itself, for the ledger row `entry`. */
  toolRun<T extends ToolRunResult>(kind: ToolRunKind, entry: LedgerEntryRecord, run: () => Promise<T>): Promise<T>;
  /**
   * The trace context of `turn`'s run in progress (a W3C `traceparent`), stored with the calls it
   * pauses on; null when nothing is traced.
   */
  runContext(turn: TurnRecord): string | null;
}

/** Telemetry off: the work runs, nothing is measured. */
export const NO_TELEMETRY: EngineTelemetry = {
  turnRun: (_kind, _turn, _agent, _turnCalls, run) => run(),
  modelStep: (_turn, _model, step) => step(),
  toolRun: (_kind, _entry, run) => run(),
  runContext: () => null,
};
