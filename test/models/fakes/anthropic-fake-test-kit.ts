import { createAnthropic } from '@ai-sdk/anthropic';
import type { AnthropicMessagesFake } from './anthropic-messages-fake.ts';
import { cityTool, streamToolLoop } from './fake-test-kit.ts';
import type { ModelScript, ScriptView } from './provider-fake.ts';

/**
 * What the Anthropic fake's two test files share (`anthropic-messages-fake.test.ts` for the AI SDK
 * loop and the wire shape, `anthropic-messages-rules.test.ts` for the rules): the weather tool, its
 * script and loop, and the pieces of raw requests.
 */

const weather = cityTool('Current weather for a city', (city) => ({
  city,
  forecast: city === 'Paris' ? 'sunny' : 'rainy',
}));

/** Reasoning plus one call per city on the user's question, then a sentence from the results. */
export function weatherScript(cities: string[]): ModelScript & { views: ScriptView[] } {
  const views: ScriptView[] = [];
  const script = (view: ScriptView) => {
    views.push(view);
    if (view.toolResults.length === 0) {
      return {
        reasoning: `The user wants the weather in ${cities.join(' and ')}; get_weather answers that.`,
        text: 'Let me check.',
        calls: cities.map((city) => ({ name: 'get_weather', arguments: { city } })),
      };
    }
    const parts = view.toolResults.map((result) => {
      const { city, forecast } = JSON.parse(result.output) as { city: string; forecast: string };
      return `${city} is ${forecast}`;
    });
    return { text: `${parts.join(', ')}.` };
  };
  return Object.assign(script, { views });
}

export function runLoop(fake: AnthropicMessagesFake, prompt: string) {
  const errors: unknown[] = [];
  const result = streamToolLoop({
    model: createAnthropic({ baseURL: fake.baseURL, apiKey: 'test' })('claude-sonnet-4-5'),
    tools: { get_weather: weather },
    prompt,
    providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
    onError: ({ error }) => {
      errors.push(error);
    },
  });
  return { result, errors };
}

/** The pieces of raw requests: a tool, a thinking request offering it, a first question, and the headers. */
export const TOOLS = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];
export const BASE = {
  model: 'claude-sonnet-4-5',
  max_tokens: 4096,
  thinking: { type: 'enabled', budget_tokens: 2048 },
  tools: TOOLS,
};
export const QUESTION = { role: 'user', content: 'Weather in Paris and London?' };
export const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'test', 'anthropic-version': '2023-06-01' };
