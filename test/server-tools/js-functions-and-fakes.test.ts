import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { runSession, toolResponse } from '../faces/ces/sessions/session-fixtures.ts';
import { APP, create, mixedProgram, PriceApi, weatherClientFunction } from './server-tool-fixtures.ts';

const quoteParameters = { type: 'OBJECT', properties: { amount: { type: 'NUMBER' } }, required: ['amount'] };

/** Runs one thread turn of agent `agent` and returns the reply. */
async function say(baton: TestBaton, agent: string, text: string): Promise<any> {
  const thread = (await baton.request('POST', '/v1/threads', { agent })).body.id;
  const reply = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: text });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

async function agentWith(baton: TestBaton, id: string, toolIds: string[]): Promise<void> {
  await create(baton, `agents?agentId=${id}`, {
    displayName: id,
    instruction: 'Help.',
    modelSettings: { model: 'scripted:mixed' },
    tools: toolIds.map((tool) => `${APP}/tools/${tool}`),
  });
}

describe('jsFunction tools and tool fakes, with the real sandbox', () => {
  let baton: TestBaton;
  const api = new PriceApi();

  beforeAll(async () => {
    await api.start();
    baton = await startTestBaton({ scripted: { mixed: mixedProgram }, egressAllow: ['127.0.0.1/32'] });
    await create(baton, 'tools?toolId=quote', {
      jsFunction: {
        name: 'quote',
        description: 'Quote a price.',
        parameters: quoteParameters,
        jsCode: 'function quote(args, ctx) { return { total: args.amount * 2, session: ctx.sessionId }; }',
      },
    });
    await create(baton, 'tools?toolId=loop', {
      timeout: '1s',
      jsFunction: { name: 'quote', parameters: quoteParameters, jsCode: 'function quote() { for (;;) {} }' },
    });
    await create(baton, 'tools?toolId=greedy', {
      jsFunction: {
        name: 'quote',
        parameters: quoteParameters,
        jsCode: 'function quote() { const a = []; for (;;) a.push(new Array(1e5).fill(1)); }',
      },
    });
    await create(baton, 'tools?toolId=thrower', {
      jsFunction: {
        name: 'quote',
        parameters: quoteParameters,
        jsCode: 'function quote() { throw new Error("no stock"); }',
      },
    });
    await create(baton, 'tools?toolId=escaper', {
      jsFunction: {
        name: 'quote',
        parameters: quoteParameters,
        jsCode: 'function quote() { return typeof fetch + typeof require + typeof process + typeof setTimeout; }',
      },
    });
    await create(baton, 'tools?toolId=refuser', {
      jsFunction: {
        name: 'quote',
        parameters: quoteParameters,
        jsCode: 'function quote() { return { error: "out of stock" }; }',
      },
    });
    for (const id of ['quote', 'loop', 'greedy', 'thrower', 'escaper', 'refuser'])
      await agentWith(baton, `js-${id}`, [id]);

    // A client function and an OpenAPI tool with fakes: weather faked for Oslo only, price always.
    await create(baton, 'tools?toolId=weather', {
      ...weatherClientFunction,
      toolFakeConfig: {
        enableFakeMode: true,
        codeBlock: {
          jsCode:
            'function fake_weather(tool, input) { return input.city === "Oslo" ? { output: "fake snow" } : null; }',
        },
      },
    });
    await create(baton, 'tools?toolId=price', {
      openApiTool: { openApiSchema: api.document() },
      toolFakeConfig: {
        enableFakeMode: true,
        codeBlock: {
          jsCode:
            'function fake_tool_call(tool, input, ctx) { return { price: 0, fake: tool.id, scenario: ctx.variables.scenario ?? null }; }',
        },
      },
    });
    await agentWith(baton, 'faked', ['weather', 'price']);
  });
  afterAll(async () => {
    await baton?.close();
    await api.close();
  });

  it('runs a jsFunction in the sandbox with the call context, as a server call', async () => {
    const reply = await say(baton, 'js-quote', 'quote');
    expect(reply.choices[0].message.content).toContain('"total":6');
  });

  it.each([
    ['loop', /did not finish within 800 ms/],
    ['greedy', /memory/i],
    ['thrower', /no stock/],
  ])('a jsFunction that %s becomes an error result and the turn goes on', async (id, problem) => {
    const reply = await say(baton, `js-${id}`, 'quote');
    expect(reply.choices[0].finish_reason).toBe('stop');
    expect(reply.choices[0].message.content).toMatch(/^Failed: /);
    expect(reply.choices[0].message.content).toMatch(problem);
  });

  it('follows the CES result convention: {error} is a failure the model sees, {output} the result', async () => {
    const reply = await say(baton, 'js-refuser', 'quote');
    expect(reply.choices[0].message.content).toBe('Failed: out of stock');
  });

  it('gives sandboxed code no host access: no fetch, require, process or timers', async () => {
    const reply = await say(baton, 'js-escaper', 'quote');
    expect(reply.choices[0].message.content).toContain('undefinedundefinedundefinedundefined');
  });

  it('without useToolFakes, fakes never run: the client function pauses and the API is called', async () => {
    const before = api.requests.length;
    const paused = await runSession(baton, 'real-1', [{ text: 'price' }], { entryAgent: `${APP}/agents/faked` });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(api.requests.length).toBe(before + 1);
    const weather = await runSession(baton, 'real-2', [{ text: 'weather' }], { entryAgent: `${APP}/agents/faked` });
    expect(weather.body.outputs.some((output: any) => output.toolCalls)).toBe(true);
  });

  it('with useToolFakes, a fake answers a client function (no pause) and an OpenAPI tool (no request), with session variables in ctx', async () => {
    const before = api.requests.length;
    const config = { entryAgent: `${APP}/agents/faked`, useToolFakes: true };
    const weather = await runSession(baton, 'fake-1', [{ text: 'weather' }], config);
    expect(weather.status, JSON.stringify(weather.body)).toBe(200);
    expect(weather.body.outputs.some((output: any) => output.toolCalls)).toBe(false);
    expect(weather.body.outputs.map((output: any) => output.text ?? '').join('')).toContain('fake snow');

    const price = await runSession(baton, 'fake-2', [{ variables: { scenario: 'demo' } }, { text: 'price' }], config);
    expect(price.body.outputs.map((output: any) => output.text ?? '').join('')).toContain('"scenario":"demo"');
    expect(api.requests.length).toBe(before);

    // The transcript marks faked calls: executor 'fake' in the Threads view of the conversation.
    const conversation = await baton.request('GET', `/v1/${APP}/conversations/fake-2`);
    expect(JSON.stringify(conversation.body)).toContain('lookup_price');
  });

  it('a fake that returns null hands a client function to the client as usual', async () => {
    const paused = await runSession(baton, 'fake-3', [{ text: 'mixed' }], {
      entryAgent: `${APP}/agents/faked`,
      useToolFakes: true,
    });
    const calls = paused.body.outputs.flatMap((output: any) => output.toolCalls?.toolCalls ?? []);
    // SF and NYC are not faked (the fake returns null for them); the price call is.
    expect(calls.map((call: any) => call.args.city)).toEqual(['SF', 'NYC']);
    const done = await runSession(baton, 'fake-3', [
      { toolResponses: { toolResponses: calls.map((call: any) => toolResponse(call, { output: 'rain' })) } },
    ]);
    expect(done.body.outputs.map((output: any) => output.text ?? '').join('')).toContain('Done');
  });
});
