import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import type { LanguageModel, StreamTextOnErrorCallback, ToolSet } from 'ai';
import { afterEach } from 'vitest';
import type { ProviderFake } from './provider-fake.ts';

/**
 * The setup the fakes' own tests share: every fake a test starts is closed after it, the AI SDK
 * drives the fake through the same tool loop with a `{ city }` tool, and raw requests are posted
 * as JSON. What each test checks stays in its own file.
 */

/**
 * Wraps a fake's start function so that every fake started through it is closed after each test
 * (a fake left open keeps its port and connections past the test). Call it at a test file's top level.
 */
export function closedAfterEach<A extends unknown[], F extends ProviderFake>(
  start: (...args: A) => Promise<F>,
): (...args: A) => Promise<F> {
  const started: F[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((fake) => fake.close()));
  });
  return async (...args) => {
    const fake = await start(...args);
    started.push(fake);
    return fake;
  };
}

/** A tool the model calls with `{ city }`; `answer` is what running it returns (the weather, as each test wants it). */
export function cityTool(description: string, answer: (city: string) => unknown) {
  return tool({
    description,
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    }),
    execute: async ({ city }) => answer(city),
  });
}

/** `streamText`'s `providerOptions` (the type the AI SDK does not export by name). */
export type ProviderOptions = NonNullable<Parameters<typeof streamText>[0]['providerOptions']>;

export interface ToolLoop<TOOLS extends ToolSet> {
  model: LanguageModel;
  prompt: string;
  tools: TOOLS;
  providerOptions?: ProviderOptions;
  /** Unset, the AI SDK logs stream errors to the console. */
  onError?: StreamTextOnErrorCallback;
}

/**
 * The AI SDK loop the fakes are tested under: `streamText` with up to three steps, so that a tool
 * call, its result and the answer that uses it all reach the fake.
 */
export function streamToolLoop<TOOLS extends ToolSet>(loop: ToolLoop<TOOLS>) {
  return streamText({ ...loop, stopWhen: stepCountIs(3) });
}

/** POSTs `body` as JSON, for tests that send raw (and deliberately wrong) requests and read the wire answer themselves. */
export function postRaw(url: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** `postRaw`, then the answer's status and parsed JSON body. */
export async function postJson(url: string, body: unknown, headers: Record<string, string>) {
  const response = await postRaw(url, body, headers);
  return { status: response.status, body: (await response.json()) as any };
}
