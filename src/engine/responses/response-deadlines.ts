import type { TurnOptions } from '../../domain/records.ts';
import type { EngineSettings } from '../engine-context.ts';

/**
 * How long a call the client answers may wait in a Responses conversation when neither its tool
 * nor its agent gives it a deadline: one day. A Responses client is stateless: when it walks away
 * (a crashed loop, a chain nobody continues, a `store: false` response continued from a stored
 * one) nothing ever answers its calls, and without a deadline they would wait in the ledger and
 * the console's inbox for ever. A day is long enough for a person behind the client (a form, an
 * answer the next morning) and short enough that a day's abandoned calls are the most the inbox
 * holds. At the deadline the agent's `timeout_policy` applies, as for any deadline.
 */
export const DEFAULT_RESPONSES_TOOL_TIMEOUT_SECONDS = 86_400;

/** The turn options of a Responses request, with the fallback deadline of its client calls. */
export function withResponsesDeadline(options: TurnOptions, settings: EngineSettings): TurnOptions {
  const seconds =
    settings.responsesToolTimeoutSeconds === undefined
      ? DEFAULT_RESPONSES_TOOL_TIMEOUT_SECONDS
      : settings.responsesToolTimeoutSeconds;
  return seconds === null ? options : { ...options, defaultToolTimeoutSeconds: seconds };
}
