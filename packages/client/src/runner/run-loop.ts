import { abortError, BatonRunError } from '../errors.ts';
import { derivedIdempotencyKey } from '../http/idempotency-key.ts';
import type { FaceAdapter, Step } from './face-adapter.ts';
import { runHandlers, type HandlerOutcome } from './run-handlers.ts';
import type { RunEvent, RunResult, ToolCallRecord } from './run-types.ts';
import type { ToolRegistry } from './tool-registry.ts';

export interface LoopSettings<Raw> {
  registry: ToolRegistry;
  handlerTimeoutMs: number;
  maxRounds: number;
  signal: AbortSignal | undefined;
  emit: (event: RunEvent<Raw>) => void;
}

export const DEFAULT_MAX_ROUNDS = 25;

/**
 * The tool loop, the same for every face: send the input; while the reply waits on client calls,
 * run all their handlers at once and send all results in one request; settle approvals through
 * the ledger; stop when the model answers in text. Results go out under a key derived from the
 * call ids and the results, so a retried submit (even one whose answer was lost) replays instead
 * of applying twice, and a handler never runs again because a request was retried.
 */
export async function runLoop<Raw>(face: FaceAdapter<Raw>, settings: LoopSettings<Raw>): Promise<RunResult<Raw>> {
  const { signal, emit } = settings;
  const answered: ToolCallRecord[] = [];
  // A step that records results while approvals stay open shows the same approvals again.
  const announced = new Set<string>();
  let rounds = 0;
  try {
    let step = await face.start(signal);
    for (;;) {
      if (step.fresh) emit({ type: 'message', message: step.message });
      if (step.calls.length === 0 && step.approvals.length === 0) {
        const next = face.afterIdle ? await face.afterIdle(signal) : null;
        if (next) {
          step = next;
          continue;
        }
        const result: RunResult<Raw> = {
          text: step.message.text ?? '',
          threadId: face.threadId(),
          message: step.message,
          toolCalls: answered,
          rounds,
          ...face.resultExtras?.(step),
        };
        emit({ type: 'done', result });
        return result;
      }
      for (const call of step.approvals) {
        if (announced.has(call.id)) continue;
        announced.add(call.id);
        emit({ type: 'approval', call });
      }
      if (step.calls.length === 0) {
        step = await face.settleApprovals(step, signal);
        continue;
      }
      if (rounds >= settings.maxRounds) {
        throw new BatonRunError(
          'max_rounds',
          `The run sent results ${rounds} times and the model still calls tools (${step.calls.map((call) => call.name).join(', ')}); ` +
            `it stopped at maxRounds = ${settings.maxRounds}. ` +
            `The calls are left pending: resume the thread to go on, or cancel it.`,
          face.threadId(),
        );
      }
      rounds += 1;
      for (const call of step.calls) emit({ type: 'tool_call', call });
      const running = runHandlers(step.calls, {
        registry: settings.registry,
        handlerTimeoutMs: settings.handlerTimeoutMs,
        signal,
        context: { threadId: face.threadId(), face: face.face },
      });
      let current: Step<Raw> = step;
      let outcomes: HandlerOutcome[];
      if (step.approvals.length > 0 && !face.resultsBeforeApprovals) {
        // Handlers run while the decisions are awaited; nobody waits on the slower of the two twice.
        [outcomes, current] = await Promise.all([running, face.settleApprovals(step, signal)]);
        const stillOwed = new Set(current.calls.map((call) => call.id));
        outcomes = outcomes.filter((outcome) => stillOwed.has(outcome.call.id));
      } else {
        outcomes = await running;
      }
      for (const outcome of outcomes) {
        const record = {
          id: outcome.call.id,
          name: outcome.call.name,
          input: outcome.call.input,
          result: outcome.content ?? '',
          isError: outcome.isError,
          durationMs: outcome.durationMs,
        };
        answered.push(record);
        emit({
          type: 'tool_result',
          call: outcome.call,
          result: record.result,
          isError: record.isError,
          durationMs: record.durationMs,
        });
      }
      if (outcomes.length === 0) {
        step = current;
        continue;
      }
      const sent = [...outcomes]
        .sort((a, b) => (a.call.id < b.call.id ? -1 : 1))
        .map((outcome) => [outcome.call.id, outcome.content ?? null, outcome.isError]);
      const key = await derivedIdempotencyKey(
        `${face.face}-results`,
        outcomes.map((outcome) => outcome.call.id),
        JSON.stringify(sent),
      );
      step = await face.submit(current, outcomes, key, signal);
    }
  } catch (error) {
    if (signal?.aborted) {
      await face.onAbort?.().catch(() => {});
      throw abortError(signal);
    }
    throw error;
  }
}
