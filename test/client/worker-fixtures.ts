import type { Baton, LedgerEntry } from '@baton/client';
import type { AgentWire } from '../../src/resources/agents/agent-config-form.ts';

/** The worker tool of the SDK's worker tests (docs/tool-workers.md), and agents that call it. */
export const TOOL = 'check_stock';

/** Calls `check_stock` with the user's text as the sku; says what came back. */
export const warehouseProgram = {
  rules: [
    { when: { user: 'stock' }, call: { tool: TOOL, arguments: { sku: '{{user}}' } } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: TOOL }, say: 'Stock: {{result}}' },
    { say: 'ok' },
  ],
};

/** One agent per test, so each fleet (filtered by agent) only meets its own test's calls. */
export function warehouseAgent(name: string): AgentWire {
  return {
    name,
    model: 'scripted:warehouse',
    tools: [
      {
        name: TOOL,
        description: 'How many of an item the warehouse holds; answered by the warehouse workers.',
        parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
        executor: 'worker',
      },
    ],
  };
}

export interface PausedCall {
  threadId: string;
  callId: string;
}

/** A new thread of `agent`, paused on the worker call its message makes. */
export async function pausedCall(baton: Baton, agent: string, text: string): Promise<PausedCall> {
  const { id: threadId } = await baton.threads.create({ agent });
  const reply = await baton.threads.send(threadId, { content: text });
  const callId = 'choices' in reply ? reply.choices[0]?.message.tool_calls?.[0]?.id : undefined;
  if (callId === undefined) throw new Error(`'${text}' did not pause ${threadId} on a call: ${JSON.stringify(reply)}`);
  return { threadId, callId };
}

/** Polls `check` until it holds; fails with `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await sleep(25);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The thread's final answer, once its turn has resumed and finished. */
export async function finalAnswer(baton: Baton, threadId: string): Promise<string> {
  await until(`thread ${threadId} is idle`, async () => (await baton.threads.get(threadId)).status === 'idle');
  const messages = await baton.threads.allMessages(threadId);
  const last = messages[messages.length - 1];
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
}

/** The app's calls of `agent` that are pending. */
export async function pendingOf(baton: Baton, agent: string): Promise<LedgerEntry[]> {
  return (await baton.toolCalls.list({ agent, state: 'pending', limit: 100 })).data;
}

/** A promise with its resolve at hand, to hold a handler until the test lets it go. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
