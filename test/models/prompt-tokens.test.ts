import type { LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import type { WindowItem } from '../../src/domain/queries.ts';
import { toModelPrompt } from '../../src/engine/model-prompt.ts';
import { promptTokens } from '../../src/models/scripted/prompt-tokens.ts';

/** A conversation's messages as the engine converts them: user questions, calls, results, answers. */
function conversation(turns: number): LanguageModelV3Message[] {
  const messages: LanguageModelV3Message[] = [];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: 'user', content: [{ type: 'text', text: `question number ${turn} about a refund` }] });
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'lookup', input: { order: turn } }],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `call_${turn}`,
          toolName: 'lookup',
          output: { type: 'text', value: 'found it' },
        },
      ],
    });
    if (turn % 3 !== 0) messages.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${turn}` }] });
  }
  return messages;
}

/** Messages that note when they are read (their role or content): which ones a count looked at. */
function watched(messages: readonly LanguageModelV3Message[]): {
  messages: LanguageModelV3Message[];
  read: Set<number>;
} {
  const read = new Set<number>();
  const wrapped = messages.map((message, index) => {
    const note = () => read.add(index);
    return {
      get role() {
        note();
        return message.role;
      },
      get content() {
        note();
        return message.content;
      },
    } as LanguageModelV3Message;
  });
  return { messages: wrapped, read };
}

/** Steps as the engine takes them: a system message, then the latest `size` messages. */
function* steps(messages: readonly LanguageModelV3Message[], size: number): Generator<LanguageModelV3Prompt> {
  for (let end = 1; end <= messages.length; end += 1 + (end % 3)) {
    yield [{ role: 'system', content: 'Be brief.' }, ...messages.slice(Math.max(0, end - size), end)];
  }
}

describe('the scripted model counting a prompt continued from the previous step', () => {
  it('counts what counting every message afresh counts', () => {
    const messages = conversation(80);
    for (const prompt of steps(messages, 60)) expect(promptTokens(prompt)).toBe(promptTokens(structuredClone(prompt)));
  });

  it('counts the messages of a prompt that shares its last message with another at another place', () => {
    const messages = conversation(20);
    promptTokens(messages.slice(0, 30));
    // The same last message, other messages before it (a fork that dropped some, say).
    const other = [...messages.slice(0, 5), ...messages.slice(10, 30)];
    expect(promptTokens(other)).toBe(promptTokens(structuredClone(other)));
    const reordered = [messages[29]!, ...messages.slice(0, 29)];
    expect(promptTokens(reordered)).toBe(promptTokens(structuredClone(reordered)));
  });

  it('reads only the new messages of each step and those back to its last user message', () => {
    const { messages, read } = watched(conversation(80));
    let promptMessages = 0;
    let readMessages = 0;
    for (const prompt of steps(messages, 60)) {
      read.clear();
      promptTokens(prompt);
      promptMessages += prompt.length - 1;
      readMessages += read.size;
      // The 1–3 messages the step added and the last turn's (at most 4).
      expect(read.size).toBeLessThanOrEqual(7);
    }
    expect(promptMessages).toBeGreaterThan(1000);
    expect(readMessages).toBeLessThan(promptMessages / 10);
  });

  it("reads only a few messages of the engine's prompts, step after step", () => {
    const items: WindowItem[] = [];
    const add = (payload: WindowItem['payload']) =>
      items.push({ seq: items.length + 1, groupId: `g${items.length}`, payload });
    const read = new Set<object>();
    /** Notes the reads of a message's role and content, keeping the object (its identity is what counts). */
    const watch = (message: object) => {
      for (const key of ['role', 'content']) {
        const value = (message as Record<string, unknown>)[key];
        Object.defineProperty(message, key, { get: () => (read.add(message), value), configurable: false });
      }
    };
    const watchedMessages = new WeakSet<object>();
    let promptMessages = 0;
    let readMessages = 0;
    for (let turn = 0; turn < 150; turn++) {
      add({ type: 'message', role: 'user', content: [{ type: 'text', text: `question ${turn}` }] });
      for (const step of [0, 1]) {
        // A step: the window (the latest 201 items, from a user message on), then what the model made.
        const latest = items.slice(-201);
        const start = latest.findIndex((item) => item.payload.type === 'message' && item.payload.role === 'user');
        const prompt = toModelPrompt('Be brief.', latest.slice(Math.max(0, start)), 'scripted:auto');
        for (const message of prompt)
          if (!watchedMessages.has(message)) {
            watchedMessages.add(message);
            watch(message);
          }
        read.clear();
        const counted = promptTokens(prompt);
        readMessages += read.size;
        promptMessages += prompt.length;
        expect(counted).toBe(promptTokens(structuredClone(prompt)));
        if (step === 0) {
          add({ type: 'function_call', callId: `call_${turn}`, name: 'lookup', arguments: '{}', executor: 'client' });
          add({
            type: 'function_call_output',
            callId: `call_${turn}`,
            name: 'lookup',
            output: [{ type: 'text', text: 'found' }],
            isError: false,
            synthetic: false,
          });
        } else add({ type: 'message', role: 'assistant', content: [{ type: 'text', text: `answer ${turn}` }] });
      }
    }
    expect(promptMessages).toBeGreaterThan(10_000);
    expect(readMessages).toBeLessThan(promptMessages / 10);
  });
});
