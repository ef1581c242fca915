import type { EngineTelemetry } from '../../engine/index.ts';

/**
 * Metrics and traces on the same hooks: `outer` wraps `inner`, so the metrics time the work with
 * its span around it, and the span context is the tracing's.
 */
export function combineEngineTelemetry(outer: EngineTelemetry, inner: EngineTelemetry): EngineTelemetry {
  return {
    turnRun: (kind, turn, agent, turnCalls, run) =>
      outer.turnRun(kind, turn, agent, turnCalls, () => inner.turnRun(kind, turn, agent, turnCalls, run)),
    modelStep: (turn, model, step) => outer.modelStep(turn, model, () => inner.modelStep(turn, model, step)),
    toolRun: (kind, entry, run) => outer.toolRun(kind, entry, () => inner.toolRun(kind, entry, run)),
    runContext: (turn) => inner.runContext(turn) ?? outer.runContext(turn),
  };
}
