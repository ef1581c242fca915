import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import {
  APP,
  clientFunctionTool,
  created,
  expectGoogleError,
  read,
  violatedField,
} from '../../faces/ces/ces-test-client.ts';

const TOOLS = `/v1/${APP}/tools`;

describe('CES tools: create, read, update, delete', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton();
  });
  afterAll(async () => baton?.close());

  it('creates a client function, keeps its CES Schema as written and derives displayName', async () => {
    const tool = await created(baton, `${TOOLS}?toolId=lookup`, {
      ...clientFunctionTool('lookup_order'),
      displayName: 'ignored',
      executionType: 'SYNCHRONOUS',
      timeout: '30s',
    });
    expect(tool).toEqual({
      name: `${APP}/tools/lookup`,
      displayName: 'lookup_order',
      ...clientFunctionTool('lookup_order'),
      executionType: 'SYNCHRONOUS',
      timeout: '30s',
      createTime: expect.any(String),
      updateTime: expect.any(String),
      etag: expect.any(String),
    });
    expect((await read(baton, tool.name)).body).toEqual(tool);
    // Server-owned fields are not stored in the body.
    const row = await baton.baton.store.resources.get(baton.baton.defaultAppId, 'tools', 'lookup');
    expect(Object.keys(row!.body).sort()).toEqual(['clientFunction', 'executionType', 'timeout']);
  });

  it('generates an id, accepts JSON Schema parameters, jsFunction and openApiTool', async () => {
    const js = await created(baton, TOOLS, {
      jsFunction: {
        name: 'add',
        jsCode: 'function add(a, b) { return a + b; }',
        parameters: { type: 'object', properties: { a: { type: 'number' } } },
      },
    });
    expect(js.name).toMatch(new RegExp(`^${APP}/tools/[a-z][a-z0-9]{11}$`));
    expect(js.displayName).toBe('add');
    const openApi = await created(baton, TOOLS, {
      openApiTool: {
        openApiSchema:
          'openapi: 3.0.0\ninfo: {title: t, version: "1"}\npaths:\n  /ping:\n    get: {operationId: ping, responses: {"200": {description: ok}}}',
        url: 'https://api.example.com',
      },
    });
    expect(openApi.displayName).toBe('openapi_tool');
  });

  it('updates with a mask and replaces everything without one', async () => {
    const tool = await created(baton, `${TOOLS}?toolId=editable`, {
      ...clientFunctionTool('editable'),
      timeout: '10s',
    });
    const masked = await baton.request('PATCH', `/v1/${tool.name}?updateMask=clientFunction.description`, {
      clientFunction: { description: 'New words.' },
      timeout: '99s',
    });
    expect(masked.status).toBe(200);
    expect(masked.body.clientFunction).toEqual({
      ...(clientFunctionTool('editable') as any).clientFunction,
      description: 'New words.',
    });
    expect(masked.body.timeout).toBe('10s');

    const whole = await baton.request('PATCH', `/v1/${tool.name}`, { clientFunction: { name: 'renamed' } });
    expect(whole.status).toBe(200);
    expect(whole.body).toMatchObject({ displayName: 'renamed', clientFunction: { name: 'renamed' } });
    expect(whole.body.timeout).toBeUndefined();
    expect(whole.body.clientFunction.parameters).toBeUndefined();
  });

  it('deletes an unreferenced tool', async () => {
    const tool = await created(baton, `${TOOLS}?toolId=bye`, clientFunctionTool('bye'));
    expect((await baton.request('DELETE', `/v1/${tool.name}`)).status).toBe(200);
    expectGoogleError(await read(baton, tool.name), 404, 'NOT_FOUND');
  });

  it('pythonFunction is refused, pointing to jsFunction', async () => {
    const error = expectGoogleError(
      await baton.request('POST', `${TOOLS}?toolId=py`, { pythonFunction: { name: 'f', pythonCode: 'def f(): pass' } }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(error.message).toBe('pythonFunction is not supported by Baton: use jsFunction with jsCode.');
    expect(violatedField(error)).toBe('tool.pythonFunction');
    expectGoogleError(await read(baton, `${APP}/tools/py`), 404, 'NOT_FOUND');
  });

  it('mcpTool and Google-hosted kinds are refused with what is supported', async () => {
    const mcp = expectGoogleError(
      await baton.request('POST', TOOLS, { mcpTool: { name: 'x', serverAddress: 'https://a/mcp/' } }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(mcp.message).toContain('managed through an MCP toolset');
    const search = expectGoogleError(
      await baton.request('POST', TOOLS, { googleSearchTool: { name: 'web' } }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(search.message).toBe(
      "'googleSearchTool' tools are not supported by Baton; supported: clientFunction, openApiTool, jsFunction.",
    );
    expect((await baton.request('GET', TOOLS)).body.tools.map((tool: any) => tool.displayName)).not.toContain('web');
  });

  it('two tool kinds at once is INVALID_ARGUMENT; so is none', async () => {
    const both = expectGoogleError(
      await baton.request('POST', `${TOOLS}?toolId=both`, {
        ...clientFunctionTool('a'),
        jsFunction: { name: 'b', jsCode: 'x' },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(both.message).toContain("both 'clientFunction' and 'jsFunction'");
    expectGoogleError(await baton.request('POST', `${TOOLS}?toolId=both`, { timeout: '3s' }), 400, 'INVALID_ARGUMENT');
    expectGoogleError(await read(baton, `${APP}/tools/both`), 404, 'NOT_FOUND');
  });

  it('a mask adding a second kind is INVALID_ARGUMENT only when the result has two', async () => {
    const tool = await created(baton, `${TOOLS}?toolId=kinds`, clientFunctionTool('kinds'));
    // The union rule: naming jsFunction replaces the member, so the result has one kind.
    const switched = await baton.request('PATCH', `/v1/${tool.name}?updateMask=jsFunction`, {
      jsFunction: { name: 'kinds_js', jsCode: 'function kinds_js() {}' },
    });
    expect(switched.status).toBe(200);
    expect(switched.body.clientFunction).toBeUndefined();
    // Naming both members with both set keeps both: refused, nothing changes.
    const error = expectGoogleError(
      await baton.request('PATCH', `/v1/${tool.name}?updateMask=jsFunction,clientFunction`, {
        ...clientFunctionTool('kinds'),
        jsFunction: { name: 'k', jsCode: 'x' },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect((await read(baton, tool.name)).body).toEqual(switched.body);
  });

  it('checks function names, parameter schemas, timeouts and fake code', async () => {
    const cases: [object, string][] = [
      [{ clientFunction: { name: 'has space' } }, 'tool.clientFunction.name'],
      [{ clientFunction: { description: 'no name' } }, 'tool.clientFunction.name'],
      [{ clientFunction: { name: 'f', parameters: { type: 'STRING' } } }, 'tool.clientFunction.parameters'],
      [
        { clientFunction: { name: 'f', parameters: { type: 'object', properties: 7 } } },
        'tool.clientFunction.parameters',
      ],
      [{ jsFunction: { name: 'f' } }, 'tool.jsFunction.jsCode'],
      [{ openApiTool: { openApiSchema: '' } }, 'tool.openApiTool.openApiSchema'],
      [{ openApiTool: { openApiSchema: '[1, 2]' } }, 'tool.openApiTool.openApiSchema'],
      [{ ...clientFunctionTool('f'), timeout: '-3s' }, 'tool.timeout'],
      [{ ...clientFunctionTool('f'), executionType: 'LATER' }, 'tool.executionType'],
      [
        { ...clientFunctionTool('f'), toolFakeConfig: { enableFakeMode: true, codeBlock: { pythonCode: 'x' } } },
        'tool.toolFakeConfig.codeBlock.pythonCode',
      ],
      [{ ...clientFunctionTool('f'), readOnly: true }, 'tool.readOnly'],
    ];
    for (const [body, field] of cases) {
      const error = expectGoogleError(
        await baton.request('POST', `${TOOLS}?toolId=checked`, body),
        400,
        'INVALID_ARGUMENT',
      );
      expect(violatedField(error), JSON.stringify(body)).toBe(field);
    }
    expectGoogleError(await read(baton, `${APP}/tools/checked`), 404, 'NOT_FOUND');
  });

  it('accepts a JavaScript fake and refuses the Python one with a hint', async () => {
    const tool = await created(baton, `${TOOLS}?toolId=faked`, {
      ...clientFunctionTool('faked'),
      toolFakeConfig: {
        enableFakeMode: true,
        codeBlock: { jsCode: 'function fake_tool_call() { return {output: 1}; }' },
      },
    });
    expect(tool.toolFakeConfig.codeBlock.jsCode).toContain('fake_tool_call');
    const error = expectGoogleError(
      await baton.request('PATCH', `/v1/${tool.name}?updateMask=toolFakeConfig`, {
        toolFakeConfig: { codeBlock: { pythonCode: 'def fake_tool_call(): pass' } },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(error.message).toContain('use jsCode');
    expect((await read(baton, tool.name)).body).toEqual(tool);
  });
});
