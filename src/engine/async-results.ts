import type { InputItem } from './input-items.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import type { RunOptions } from './engine-types.ts';
import { applyResult } from './ledger/ledger-transitions.ts';
import type { MatchedResult } from './ledger/result-intake.ts';

/** Results of asynchronous calls found among a request's results, ready to be applied. */
export interface AsyncDelivery {
  /** One output item per asynchronous result, added to the conversation as input. */
  items: InputItem[];
  /** Call ids of `items`, which answer calls made in earlier steps (see `checkInputItems`). */
  callIds: Set<string>;
  /** The run options, whose `onAccepted` now also resolves the ledger rows. */
  options: RunOptions;
}

/**
 * An asynchronous result (its turn went on without it) enters the conversation as a new output
 * of its call, and its ledger row is resolved in the transaction that accepts the input, so it
 * is delivered exactly once.
 */
export function deliverAsyncResults(
  context: EngineContext,
  results: readonly MatchedResult[],
  options: RunOptions,
): AsyncDelivery {
  const items: InputItem[] = results.map(({ result, entry }) => ({
    type: 'function_call_output',
    callId: entry.id,
    name: entry.toolName,
    output: result.output,
    isError: result.isError,
  }));
  const callIds = new Set(results.map(({ entry }) => entry.id));
  if (results.length === 0) return { items, callIds, options };
  const onAccepted: RunOptions['onAccepted'] = async (tx, accepted) => {
    const now = nowIso(context);
    for (const { result, entry } of results) {
      await applyResult(tx, entry, result, options.submission, now, `${result.param}.tool_call_id`);
    }
    await options.onAccepted?.(tx, accepted);
  };
  return { items, callIds, options: { ...options, onAccepted } };
}
