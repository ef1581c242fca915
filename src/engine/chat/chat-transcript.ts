import type { InputItem } from '../input-items.ts';

/**
 * A Chat Completions client sends its whole transcript with every request. What the request asks
 * of Baton is at its end: the tool results after the last assistant message (the answers to the
 * calls it made) and the messages after them (new input). Everything before is history.
 */
export interface TranscriptTail {
  /** Positions (in the transcript) of the tool results that follow the last assistant output. */
  answers: number[];
  /** Positions of the user and system messages after those results: the request's new input. */
  followUp: number[];
}

export function transcriptTail(items: readonly InputItem[]): TranscriptTail {
  let end = items.length;
  const followUp: number[] = [];
  while (end > 0) {
    const item = items[end - 1];
    if (item?.type !== 'message' || item.role === 'assistant') break;
    end -= 1;
    followUp.unshift(end);
  }
  const answers: number[] = [];
  while (end > 0 && items[end - 1]?.type === 'function_call_output') {
    end -= 1;
    answers.unshift(end);
  }
  return { answers, followUp };
}
