import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBaton } from '../../helpers/test-baton.ts';
import {
  APP,
  ask,
  createAgent,
  createToolset,
  type Everything,
  ok,
  resultText,
  retrieveTools,
  serverCalls,
  startEverything,
  startMcpBaton,
} from './everything-fixtures.ts';

/**
 * MCP toolsets end to end: a real server-everything, toolsets and agents made over the CES REST
 * API, turns run by a scripted model through the Threads API, and `:retrieveTools`.
 */

const program = {
  rules: [
    { when: { user: 'echo' }, call: { tool: 'echo', arguments: { message: 'hi from baton' } } },
    { when: { user: 'sum' }, call: { tool: 'get-sum', arguments: { a: 2, b: 3 } } },
    { when: { user: 'say back' }, call: { tool: 'say_back', arguments: { message: 'overridden' } } },
    { when: { user: 'bad reference' }, call: { tool: 'get-resource-reference', arguments: { resourceId: 0 } } },
    { when: { user: 'image' }, call: { tool: 'get-tiny-image', arguments: {} } },
    { when: { user: 'weather' }, call: { tool: 'get-structured-content', arguments: { location: 'Chicago' } } },
    { when: { user: 'slow' }, call: { tool: 'trigger-long-running-operation', arguments: { duration: 30, steps: 1 } } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

const PETS_API = {
  openapi: '3.0.0',
  info: { title: 'Pets', version: '1' },
  servers: [{ url: 'http://127.0.0.1:9/api' }],
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        summary: 'Lists the pets.',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/pets/{id}': {
      get: {
        operationId: 'getPet',
        summary: 'One pet.',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
};

describe('MCP toolsets against server-everything: turns and :retrieveTools', () => {
  let everything: Everything;
  let baton: TestBaton;

  beforeAll(async () => {
    everything = await startEverything();
    baton = await startMcpBaton({ desk: program });
    await createToolset(baton, 'everything', { serverAddress: everything.url });
    await createToolset(baton, 'renamed', {
      serverAddress: everything.url,
      toolOverrides: [
        { tool: 'echo', nameOverride: 'say_back', descriptionOverride: 'Repeats the message back to the customer.' },
      ],
    });
    await createToolset(baton, 'slow', { serverAddress: everything.url }, { timeout: '1s' });
    await createAgent(baton, 'echoer', 'desk', 'everything', ['echo']);
    await createAgent(baton, 'renamer', 'desk', 'renamed', ['echo']);
    await createAgent(baton, 'kitchen-sink', 'desk', 'everything', [
      'get-resource-reference',
      'get-tiny-image',
      'get-structured-content',
    ]);
    await createAgent(baton, 'waiter', 'desk', 'slow', ['trigger-long-running-operation']);
  }, 60_000);
  afterAll(async () => {
    await baton?.close();
    await everything?.stop();
  });

  it('runs an echo call on the MCP server inside the turn and answers with its text', async () => {
    const { reply, messages } = await ask(baton, 'echoer', 'please echo');
    expect(reply.finish_reason).toBe('stop');
    expect(reply.message.content).toBe('Done: Echo: hi from baton');
    const { calls, results } = serverCalls(messages);
    expect(calls).toEqual([['echo', 'server']]);
    expect(results.map(resultText)).toEqual(['Echo: hi from baton']);
  });

  it('offers only the tools the agent narrowed the toolset to', async () => {
    const { reply, messages } = await ask(baton, 'echoer', 'sum please');
    expect(reply.message.content).toMatch(/no tool named 'get-sum'; available tools: echo\./);
    expect(serverCalls(messages).calls).toEqual([]);
  });

  it('applies toolOverrides: the model calls say_back, the server runs echo, :retrieveTools shows the override', async () => {
    const { reply, messages } = await ask(baton, 'renamer', 'say back please');
    expect(serverCalls(messages).calls).toEqual([['say_back', 'server']]);
    // "Echo: …" is what server-everything's echo tool answers: the server ran `echo`.
    expect(reply.message.content).toBe('Done: Echo: overridden');

    const retrieved = await retrieveTools(baton, 'renamed', { toolIds: ['echo'] });
    expect(retrieved.status, JSON.stringify(retrieved.body)).toBe(200);
    expect(retrieved.body).toEqual({
      tools: [
        {
          name: `${APP}/toolsets/renamed/tools/echo`,
          displayName: 'say_back',
          mcpTool: {
            name: 'echo',
            nameOverride: 'say_back',
            description: 'Repeats the message back to the customer.',
            inputSchema: expect.objectContaining({
              type: 'object',
              properties: { message: expect.objectContaining({ type: 'string' }) },
              required: ['message'],
            }),
            serverAddress: everything.url,
          },
        },
      ],
    });
    // The overridden name selects the same tool.
    const byOverride = await retrieveTools(baton, 'renamed', { toolIds: ['say_back'] });
    expect(byOverride.body.tools.map((tool: any) => tool.name)).toEqual([`${APP}/toolsets/renamed/tools/echo`]);
  });

  it(':retrieveTools lists every tool of the server without toolIds, and refuses an unknown toolId by name', async () => {
    const all = await retrieveTools(baton, 'everything');
    expect(all.status).toBe(200);
    const ids = all.body.tools.map((tool: any) => tool.mcpTool.name);
    expect(ids).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'trigger-long-running-operation']),
    );
    expect(all.body.snapshot).toBeUndefined();
    const echo = all.body.tools.find((tool: any) => tool.mcpTool.name === 'echo');
    expect(echo).toMatchObject({ displayName: 'echo', mcpTool: { description: expect.stringMatching(/echo/i) } });
    expect(echo.mcpTool.nameOverride).toBeUndefined();

    const unknown = await retrieveTools(baton, 'everything', { toolIds: ['echo', 'no-such-tool'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringContaining("toolIds[1] 'no-such-tool' is not a tool of toolset"),
    });
    expect(unknown.body.error.details).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'toolIds[1]', description: expect.any(String) }],
    });
  });

  it(':retrieveTools answers NOT_FOUND for a missing toolset and INVALID_ARGUMENT for an unknown body field', async () => {
    const missing = await retrieveTools(baton, 'nope', {});
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({
      status: 'NOT_FOUND',
      message: expect.stringContaining(`${APP}/toolsets/nope`),
    });
    const strange = await retrieveTools(baton, 'everything', { toolIdz: ['echo'] });
    expect(strange.status).toBe(400);
    expect(strange.body.error.status).toBe('INVALID_ARGUMENT');
    const wrongMethod = await baton.request('POST', `/v1/${APP}/toolsets/everything:listTools`, {});
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.body.error.message).toContain(':retrieveTools');
  });

  it(':retrieveTools returns the operations of an OpenAPI toolset', async () => {
    await ok(baton, `/v1/${APP}/toolsets?toolsetId=pets`, {
      displayName: 'Pets',
      openApiToolset: { openApiSchema: JSON.stringify(PETS_API) },
    });
    const all = await retrieveTools(baton, 'pets');
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.tools.map((tool: any) => [tool.name, tool.displayName])).toEqual([
      [`${APP}/toolsets/pets/tools/listPets`, 'listPets'],
      [`${APP}/toolsets/pets/tools/getPet`, 'getPet'],
    ]);
    const [getPet] = (await retrieveTools(baton, 'pets', { toolIds: ['getPet'] })).body.tools;
    expect(getPet.openApiTool).toMatchObject({
      name: 'getPet',
      description: expect.stringContaining('One pet'),
      parameters: { type: 'object', properties: { id: expect.any(Object) } },
    });
    const unknown = await retrieveTools(baton, 'pets', { toolIds: ['deletePet'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/'deletePet' is not a tool of toolset .*listPets, getPet/);
  });

  it('maps an isError result of the server to an error result the model sees, and the turn goes on', async () => {
    const { reply, messages } = await ask(baton, 'kitchen-sink', 'a bad reference');
    const { results } = serverCalls(messages);
    expect(results).toEqual([expect.objectContaining({ is_error: true })]);
    expect(resultText(results[0])).toContain('Invalid resourceId: 0');
    expect(reply.finish_reason).toBe('stop');
    expect(reply.message.content).toMatch(/^Failed: Invalid resourceId: 0/);
  });

  it('keeps an image result as an image part and structured content as its JSON text', async () => {
    const image = serverCalls((await ask(baton, 'kitchen-sink', 'an image please')).messages).results;
    expect(image).toHaveLength(1);
    const parts = image[0].content as any[];
    expect(parts.filter((part) => part.type === 'text').map((part) => part.text)).toContain(
      "Here's the image you requested:",
    );
    expect(parts.find((part) => part.type === 'image')).toMatchObject({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) },
    });

    const weather = await ask(baton, 'kitchen-sink', 'the weather in Chicago');
    const [result] = serverCalls(weather.messages).results;
    expect(JSON.parse(resultText(result))).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
  });

  it('turns a call that overruns the toolset timeout into an error result, and the turn goes on', async () => {
    // The operation takes 30 s; the turn must not wait for it.
    expect((await retrieveTools(baton, 'slow', { toolIds: ['trigger-long-running-operation'] })).status).toBe(200);
    const started = Date.now();
    const { reply, messages } = await ask(baton, 'waiter', 'something slow');
    const elapsed = Date.now() - started;
    const { results } = serverCalls(messages);
    expect(results).toEqual([expect.objectContaining({ is_error: true })]);
    expect(resultText(results[0])).toContain("Tool 'trigger-long-running-operation' did not answer within 1 s");
    expect(elapsed).toBeLessThan(15_000);
    expect(reply.finish_reason).toBe('stop');
    expect(reply.message.content).toMatch(/^Failed: .*did not answer within 1 s/);
    // The connection is still good for the next call.
    expect((await ask(baton, 'echoer', 'echo again')).reply.message.content).toBe('Done: Echo: hi from baton');
  });
});
