import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/**
 * Tool schemas built with zod 4 (as LangChain and the AI SDK send them) name the JSON Schema
 * 2020-12 dialect in `$schema`; they are accepted and checked like any other, on every face.
 */
describe('tool parameters that name their JSON Schema dialect', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton();
  });
  afterAll(async () => server.close());

  const getWeather = {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  };

  it('a Threads message declares one and the model calls it', async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const paused = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'What is the weather in Paris?',
      tools: [getWeather],
    });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body.choices[0].message.tool_calls[0]).toMatchObject({
      name: 'get_weather',
      input: { city: 'Paris' },
    });
  });

  it('a Responses request declares one and gets a function_call', async () => {
    const response = await server.request('POST', '/v1/responses', {
      model: 'scripted:auto',
      input: 'What is the weather in Paris?',
      tools: [{ type: 'function', ...getWeather }],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.output.find((item: { type: string }) => item.type === 'function_call')?.name).toBe(
      'get_weather',
    );
  });
});
