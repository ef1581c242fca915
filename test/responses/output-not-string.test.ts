import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { getWeather } from '../helpers/responses-lifecycle-fixtures.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/**
 * The seed's most common mistake: a function's result sent as a JSON object,
 * `"output": {"temperature": 18}`, instead of a string. It gets a 400 in the OpenAI format naming
 * the field and saying to JSON.stringify the result, and the call stays pending, answerable.
 */
describe('Responses API: a function_call_output whose output is not a string', () => {
  let server: TestBaton;
  let client: OpenAI;
  beforeAll(async () => {
    server = await startTestBaton();
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
  });
  afterAll(async () => server?.close());

  async function paused() {
    const response = await client.responses.create({
      model: 'scripted:auto',
      input: 'Weather in Paris?',
      tools: [getWeather],
    });
    const call = response.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    return { id: response.id, callId: call.call_id };
  }

  it('the seed’s payload: 400 tool_output_not_string, param input[0].output, and the call stays pending', async () => {
    const { id, callId } = await paused();
    for (const base of ['/v1', '/nodexa/v1']) {
      const refused = await server.request('POST', `${base}/responses`, {
        model: 'scripted:auto',
        previous_response_id: id,
        input: [{ type: 'function_call_output', call_id: callId, output: { temperature: 18 } }],
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'tool_output_not_string',
        param: 'input[0].output',
      });
      expect(refused.body.error.message).toContain(
        "Invalid type for 'input[0].output': expected a string, but got an object",
      );
      expect(refused.body.error.message).toContain('JSON.stringify the result');
    }
    expect((await server.request('GET', `/v1/tool-calls/${callId}`)).body).toMatchObject({ state: 'pending' });

    const answered = await client.responses.create({
      model: 'scripted:auto',
      previous_response_id: id,
      input: [{ type: 'function_call_output', call_id: callId, output: JSON.stringify({ temperature: 18 }) }],
    });
    expect(answered.output_text).toContain('temperature: 18');
  });

  it('names the item among several, and the JSON type it got (number, boolean, null)', async () => {
    const { id, callId } = await paused();
    for (const [output, kind] of [
      [18, 'a number'],
      [true, 'a boolean'],
      [null, 'null'],
    ] as const) {
      const refused = await server.request('POST', '/v1/responses', {
        previous_response_id: id,
        input: [
          { role: 'user', content: 'and then?' },
          { type: 'function_call_output', call_id: callId, output },
        ],
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.param).toBe('input[1].output');
      expect(refused.body.error.message).toContain(`but got ${kind} instead`);
    }
  });

  it('the openai client gets a BadRequestError with the param', async () => {
    const { id, callId } = await paused();
    await expect(
      client.responses.create({
        previous_response_id: id,
        input: [{ type: 'function_call_output', call_id: callId, output: { temperature: 18 } as unknown as string }],
      }),
    ).rejects.toMatchObject({ status: 400, code: 'tool_output_not_string', param: 'input[0].output' });
  });

  it('a WebSocket response.create gets the same error in its envelope', async () => {
    const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/v1/responses`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const envelope = new Promise<Record<string, any>>((resolve) =>
      ws.once('message', (data) => resolve(JSON.parse(String(data)))),
    );
    ws.send(
      JSON.stringify({
        type: 'response.create',
        model: 'scripted:auto',
        input: [{ type: 'function_call_output', call_id: 'call_x', output: { temperature: 18 } }],
      }),
    );
    expect(await envelope).toMatchObject({
      type: 'error',
      status: 400,
      error: { code: 'tool_output_not_string', param: 'input[0].output' },
    });
    ws.close();
  });
});
