import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_KINDS } from '../../../src/resources/index.ts';
import { toolCollection } from '../../../src/resources/tools/tool-resource.ts';
import { toolRequestSchemas } from '../../../src/resources/tools/tool-schemas.ts';
import { toolsetCollection } from '../../../src/resources/toolsets/toolset-resource.ts';
import { toolsetRequestSchemas } from '../../../src/resources/toolsets/toolset-schemas.ts';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { APP, expectGoogleError } from '../../faces/ces/ces-test-client.ts';
import { echoKind } from './echo-kind.ts';

/** The properties of the resource a create request message carries (`tool`, `toolset`). */
function resourceProperties(schema: z.ZodType, field: string): string[] {
  const json = z.toJSONSchema(schema, { io: 'input' }) as { properties: Record<string, { properties: object }> };
  return Object.keys(json.properties[field]?.properties ?? {});
}

describe('the tool-kind registry', () => {
  it('lists every kind once, in the order of the wire oneof', () => {
    expect(TOOL_KINDS.keys('tools')).toEqual(['clientFunction', 'openApiTool', 'jsFunction']);
    expect(TOOL_KINDS.keys('toolsets')).toEqual(['mcpToolset', 'openApiToolset']);
    expect(() => TOOL_KINDS.with({ ...echoKind, key: 'jsFunction' })).toThrow(/registered twice/);
  });

  it('is where the Tool and Toolset wire schemas, masks, unions and filters get their kinds', () => {
    const kinds = TOOL_KINDS.with(echoKind);
    const tool = resourceProperties(toolRequestSchemas(kinds).create, 'tool');
    expect(tool).toEqual(expect.arrayContaining([...kinds.keys('tools')]));
    expect(resourceProperties(toolRequestSchemas(TOOL_KINDS).create, 'tool')).not.toContain('echoTool');
    const spec = toolCollection(kinds);
    expect(spec.mask.mutable).toContain('echoTool');
    expect(spec.mask.unions[0]?.slice(0, 4)).toEqual(['clientFunction', 'openApiTool', 'jsFunction', 'echoTool']);
    expect(spec.filterFields).toContain('echoTool');

    const toolset = resourceProperties(toolsetRequestSchemas(TOOL_KINDS).create, 'toolset');
    expect(toolset).toEqual(expect.arrayContaining(['mcpToolset', 'openApiToolset', 'connectorToolset']));
    expect(toolsetCollection(TOOL_KINDS).mask.unions).toEqual([['mcpToolset', 'openApiToolset', 'connectorToolset']]);
  });
});

describe('adding a tool kind is one module and one registry line', () => {
  let baton: TestBaton;
  let plain: TestBaton;
  const echo = { echoTool: { name: 'echo', prefix: 'heard: ' } };

  beforeAll(async () => {
    const scripted = {
      echoing: {
        rules: [
          { when: { user: 'echo' }, call: { tool: 'echo', arguments: { text: 'hello' } } },
          { when: { tool_result: true }, say: 'Done: {{result}}' },
          { say: 'ok' },
        ],
      },
    };
    baton = await startTestBaton({ scripted }, { toolKinds: TOOL_KINDS.with(echoKind) });
    plain = await startTestBaton();
  });
  afterAll(async () => {
    await baton?.close();
    await plain?.close();
  });

  it('a Baton without the kind refuses it as an unknown field', async () => {
    const refused = await plain.request('POST', `/v1/${APP}/tools?toolId=echo`, echo);
    expectGoogleError(refused, 400, 'INVALID_ARGUMENT');
  });

  it('is accepted on create, checked, masked on update and listed', async () => {
    const missing = await baton.request('POST', `/v1/${APP}/tools?toolId=nameless`, { echoTool: {} });
    expectGoogleError(missing, 400, 'INVALID_ARGUMENT');

    const created = await baton.request('POST', `/v1/${APP}/tools?toolId=echo`, echo);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ name: `${APP}/tools/echo`, displayName: 'echo', ...echo });

    // It is one alternative of tool_type: setting another kind beside it is a conflict.
    const both = await baton.request('PATCH', `/v1/${APP}/tools/echo`, {
      ...echo,
      jsFunction: { name: 'x', jsCode: 'function x() {}' },
    });
    expectGoogleError(both, 400, 'INVALID_ARGUMENT');

    const updated = await baton.request('PATCH', `/v1/${APP}/tools/echo?updateMask=echoTool.prefix`, {
      echoTool: { name: 'ignored', prefix: 'said: ' },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.echoTool).toEqual({ name: 'echo', prefix: 'said: ' });

    const listed = await baton.request(
      'GET',
      `/v1/${APP}/tools?filter=${encodeURIComponent('echoTool.name = "echo"')}`,
    );
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.tools.map((tool: { name: string }) => tool.name)).toEqual([`${APP}/tools/echo`]);
  });

  it('is offered to the agents that name it, and runs', async () => {
    const agent = await baton.request('POST', `/v1/${APP}/agents?agentId=echoer`, {
      displayName: 'Echoer',
      modelSettings: { model: 'scripted:echoing' },
      tools: [`${APP}/tools/echo`],
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(200);
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'echoer' })).body.id;
    const reply = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: 'echo' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.choices[0].message.content).toBe('Done: said: hello');
  });
});
