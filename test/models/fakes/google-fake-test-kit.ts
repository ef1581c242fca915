import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { cityTool, postRaw, streamToolLoop } from './fake-test-kit.ts';
import type { ProviderOptions } from './fake-test-kit.ts';
import type { GoogleGenerateContentFake, startGoogleGenerateContentFake } from './google-generate-content-fake.ts';
import type { ModelScript, ScriptView } from './provider-fake.ts';

/**
 * What the Gemini fake's two test files share (`google-generate-content-fake.test.ts` for the AI SDK
 * loop and the wire shape, `google-generate-content-rules.test.ts` for the rule violations): the
 * weather tool and loop, a one-call script and a recorded run of it, and raw posts.
 */

/** The weather tool; each city it is run for is pushed to `calls`. */
export const weatherTool = (calls: string[]) =>
  cityTool('Current weather for a city', (city) => {
    calls.push(city);
    return `${city}: sunny, 21°C`;
  });

export const thinking = { google: { thinkingConfig: { includeThoughts: true } } };

/** The AI SDK loop against the fake with `gemini-3-flash` and the weather tool, which pushes each city to `calls`. */
export function runWeatherLoop(
  fake: GoogleGenerateContentFake,
  prompt: string,
  calls: string[],
  providerOptions?: ProviderOptions,
) {
  const google = createGoogleGenerativeAI({ baseURL: fake.baseURL, apiKey: 'test' });
  return streamToolLoop({
    model: google('gemini-3-flash'),
    prompt,
    tools: { get_weather: weatherTool(calls) },
    providerOptions,
  });
}

/** Reasoning + one call first; text once the result arrives. */
export const oneCallScript: ModelScript = (view) =>
  view.toolResults.length === 0
    ? {
        reasoning: 'The user wants the weather; call get_weather.',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
      }
    : { text: `Here it is: ${view.toolResults.map((r) => r.output).join('; ')}` };

/**
 * Runs the AI SDK loop for one call on a fake from `start` (the test file's, which closes it) and
 * returns the fake plus the genuine follow-up request body.
 */
export async function recordOneCallLoop(start: typeof startGoogleGenerateContentFake) {
  const views: ScriptView[] = [];
  const fake = await start((view) => {
    views.push(view);
    return oneCallScript(view);
  });
  const calls: string[] = [];
  const result = runWeatherLoop(fake, 'Weather in Paris?', calls, thinking);
  const text = await result.text;
  const reasoning = (await result.steps)[0]?.reasoningText;
  const followUp = structuredClone(fake.requests[1]!.body);
  return { fake, views, calls, text, reasoning, followUp };
}

export async function post(
  fake: GoogleGenerateContentFake,
  body: unknown,
  opts: { model?: string; key?: string | null } = {},
) {
  const headers: Record<string, string> = {};
  if (opts.key !== null) headers['x-goog-api-key'] = opts.key ?? 'test';
  const response = await postRaw(
    `${fake.baseURL}/models/${opts.model ?? 'gemini-3-flash'}:streamGenerateContent?alt=sse`,
    body,
    headers,
  );
  const text = await response.text();
  return {
    status: response.status,
    text,
    json: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined,
  };
}
