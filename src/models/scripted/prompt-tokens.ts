import type { LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { countTokens } from './text-analysis.ts';

type PromptMessage = LanguageModelV3Prompt[number];

/** A prompt counted before, by message: the next step's prompt takes the counts of those it shares. */
interface CountedPrompt {
  readonly messages: LanguageModelV3Prompt;
  readonly words: readonly number[];
  /** Where in `messages` the message it is kept by is. */
  readonly keyIndex: number;
}

/**
 * Counted prompts by the last message before their last user message. The engine converts a
 * window's last segment (its last user message and what follows) again at the next step, as new
 * message objects; the messages before it are the ones the next prompt holds as they were.
 */
const countedByKey = new WeakMap<PromptMessage, CountedPrompt>();
/** How far from its end the next prompt may hold the message a prompt is kept by. */
const NEW_MESSAGES_LOOKED_AT = 64;

/**
 * Words of all the text a real model would have read, for the scripted model's input-token
 * estimate. Counted piece by piece (pieces never share a word), without building the whole prompt
 * as one string. The engine hands the same message objects to every step of a conversation (it
 * converts each segment of the history once), and each step's prompt is the one before with
 * messages gone from its start and new ones at its end: the messages it shares with the previous
 * prompt, found by identity at the same distance from the message that prompt is kept by, take
 * their counts from it. Only the new messages are looked at, not every message of the window at
 * every step (a lookup per message came to 1–2 % of a round trip on a long thread). Whatever the
 * prompt, the count is the same: a message not found where it was counts afresh.
 */
export function promptTokens(prompt: LanguageModelV3Prompt): number {
  const { previous, offset } = previousCount(prompt);
  const words: number[] = [];
  let total = 0;
  for (let index = 0; index < prompt.length; index++) {
    const message = prompt[index]!;
    const shared = previous !== undefined && previous.messages[index + offset] === message;
    const count = shared ? previous.words[index + offset]! : messageTokens(message);
    words.push(count);
    total += count;
  }
  if (previous) countedByKey.delete(previous.messages[previous.keyIndex]!);
  const keyIndex = lastBeforeLastUser(prompt);
  // A copy: the prompt is the caller's, and the counts must keep matching the messages they were made for.
  if (keyIndex >= 0) countedByKey.set(prompt[keyIndex]!, { messages: [...prompt], words, keyIndex });
  return total;
}

/** The prompt counted before that this one continues, and where: its index here plus `offset`. */
function previousCount(prompt: LanguageModelV3Prompt): { previous: CountedPrompt | undefined; offset: number } {
  const stop = Math.max(0, prompt.length - NEW_MESSAGES_LOOKED_AT);
  for (let index = prompt.length - 1; index >= stop; index--) {
    const previous = countedByKey.get(prompt[index]!);
    if (previous) return { previous, offset: previous.keyIndex - index };
  }
  return { previous: undefined, offset: 0 };
}

function lastBeforeLastUser(prompt: LanguageModelV3Prompt): number {
  let index = prompt.length - 1;
  while (index >= 0 && prompt[index]!.role !== 'user') index--;
  return index - 1;
}

/** Words of a message: its parts', each counted once (the engine converts each stored item once). */
function messageTokens(message: PromptMessage): number {
  // The system message is made anew at every step from the instructions.
  if (message.role === 'system') return countTokens(message.content);
  let count = 0;
  for (const part of message.content) count += partTokens(part);
  return count;
}

type PromptPart = Exclude<PromptMessage, { role: 'system' }>['content'][number];

/**
 * Words per prompt part. The engine hands the same part objects to every step of a conversation
 * (it converts each stored item once), so a part is counted once, not at each step.
 */
const partWords = new WeakMap<PromptPart, number>();

function partTokens(part: PromptPart): number {
  const known = partWords.get(part);
  if (known !== undefined) return known;
  const count =
    part.type === 'text' || part.type === 'reasoning'
      ? countTokens(part.text)
      : part.type === 'tool-call'
        ? countTokens(part.toolName) + countTokens(JSON.stringify(part.input) ?? '')
        : part.type === 'tool-result'
          ? toolResultTokens(part.output)
          : 0;
  partWords.set(part, count);
  return count;
}

/** A result's words: a text result (the usual one) is counted as it is, without serialising it first. */
function toolResultTokens(output: LanguageModelV3ToolResultOutput): number {
  if (output.type === 'text' || output.type === 'error-text') return countTokens(output.value);
  return countTokens(JSON.stringify(output) ?? '');
}
