import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { APP, created, expectGoogleError, read, violatedField } from './ces-test-client.ts';
import { sessionPrograms } from './sessions/session-fixtures.ts';

const TOOLSETS = `/v1/${APP}/toolsets`;
const PETS_OPENAPI =
  'openapi: 3.0.0\ninfo: {title: pets, version: "1"}\nservers: [{url: "https://pets.example.com"}]\npaths:\n' +
  '  /pets:\n    get: {operationId: listPets, responses: {"200": {description: ok}}}\n' +
  '  /pets/{id}:\n    get: {operationId: getPet, parameters: [{name: id, in: path, required: true, schema: {type: string}}], ' +
  'responses: {"200": {description: ok}}}';
const SESSIONS = `/v1/${APP}/sessions`;

/** The seed's client function (ces-client-function-tools: get_nearest_store), written with proto field names. */
const nearestStoreTool = {
  client_function: {
    name: 'get_nearest_store',
    description: 'Nearest store to a zip code.',
    parameters: { type: 'OBJECT', properties: { zip_code: { type: 'STRING' } }, required: ['zip_code'] },
  },
  execution_type: 'SYNCHRONOUS',
};

function runSession(baton: TestBaton, session: string, body: object) {
  return baton.request('POST', `${SESSIONS}/${session}:runSession`, body);
}

/**
 * CES requests in the original (proto, snake_case) field names, as the CES docs and exports write
 * them, over REST on a real port: accepted everywhere JSON names are, answered in JSON names.
 */
describe('CES REST: proto field names', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton({ scripted: sessionPrograms });
  });
  afterAll(async () => baton?.close());

  it('creates, updates and lists resources from proto field names, and answers in JSON names', async () => {
    const tool = await created(baton, `/v1/${APP}/tools?tool_id=get-nearest-store`, nearestStoreTool);
    expect(tool).toMatchObject({
      name: `${APP}/tools/get-nearest-store`,
      displayName: 'get_nearest_store',
      executionType: 'SYNCHRONOUS',
      // The schema's own property names are the client's data: kept as written.
      clientFunction: { parameters: { properties: { zip_code: { type: 'STRING' } }, required: ['zip_code'] } },
    });
    expect(JSON.stringify(tool)).not.toMatch(/client_function|execution_type|display_name/);

    const toolset = await created(baton, `${TOOLSETS}?toolset_id=crm`, {
      display_name: 'CRM',
      description: 'Customer records',
      execution_type: 'SYNCHRONOUS',
      tool_fake_config: { enable_fake_mode: false },
      mcp_toolset: {
        server_address: 'https://example.com/mcp/',
        custom_headers: { x_customer_id: '$context.variables.customer_id' },
      },
    });
    expect(toolset).toEqual({
      name: `${APP}/toolsets/crm`,
      displayName: 'CRM',
      description: 'Customer records',
      executionType: 'SYNCHRONOUS',
      toolFakeConfig: { enableFakeMode: false },
      mcpToolset: {
        serverAddress: 'https://example.com/mcp/',
        customHeaders: { x_customer_id: '$context.variables.customer_id' },
      },
      createTime: expect.any(String),
      updateTime: expect.any(String),
      etag: expect.any(String),
    });
    expect((await read(baton, toolset.name)).body).toEqual(toolset);

    // update_mask in the query, and its paths, in proto names too.
    const patched = await baton.request(
      'PATCH',
      `/v1/${toolset.name}?update_mask=display_name,mcp_toolset.server_address`,
      {
        display_name: 'CRM (prod)',
        mcp_toolset: { server_address: 'https://crm.example.com/mcp/' },
        etag: toolset.etag,
      },
    );
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({
      displayName: 'CRM (prod)',
      description: 'Customer records',
      mcpToolset: {
        serverAddress: 'https://crm.example.com/mcp/',
        customHeaders: { x_customer_id: '$context.variables.customer_id' },
      },
    });

    const second = await created(baton, `${TOOLSETS}?toolsetId=second`, {
      displayName: 'Second',
      mcpToolset: { serverAddress: 'https://two.example.com/mcp/' },
    });
    const page = await baton.request('GET', `${TOOLSETS}?page_size=1&order_by=create_time%20desc`);
    expect(page.body.toolsets.map((one: { name: string }) => one.name)).toEqual([second.name]);
    const next = await baton.request(
      'GET',
      `${TOOLSETS}?page_size=1&order_by=create_time%20desc&page_token=${page.body.nextPageToken}`,
    );
    expect(next.body.toolsets.map((one: { name: string }) => one.name)).toEqual([toolset.name]);

    // A custom method's body too: RetrieveToolsRequest.tool_ids.
    const openApi = await created(baton, `${TOOLSETS}?toolset_id=pets`, {
      display_name: 'Pets',
      open_api_toolset: { open_api_schema: PETS_OPENAPI, ignore_unknown_fields: true },
    });
    expect(openApi.openApiToolset).toEqual({ openApiSchema: PETS_OPENAPI, ignoreUnknownFields: true });
    const retrieved = await baton.request('POST', `/v1/${openApi.name}:retrieveTools`, { tool_ids: ['listPets'] });
    expect(retrieved.status, JSON.stringify(retrieved.body)).toBe(200);
    expect(retrieved.body.tools.map((one: { name: string }) => one.name)).toEqual([`${openApi.name}/tools/listPets`]);
    await baton.request('DELETE', `/v1/${openApi.name}`);
  });

  it('runs the seed’s client-function session with proto field names: toolCalls out, tool_responses in', async () => {
    const agent = await created(baton, `/v1/${APP}/agents?agent_id=store-finder`, {
      display_name: 'Store finder',
      instruction: 'Find stores.',
      model_settings: { model: 'scripted:stores' },
      tools: [`${APP}/tools/get-nearest-store`],
    });
    expect(agent).toMatchObject({ displayName: 'Store finder', modelSettings: { model: 'scripted:stores' } });
    const app = await baton.request('PATCH', `/v1/${APP}?update_mask=root_agent`, { root_agent: agent.name });
    expect(app.status, JSON.stringify(app.body)).toBe(200);
    expect(app.body.rootAgent).toBe(agent.name);

    const first = await runSession(baton, 'seed-snake', {
      config: { session: `${APP}/sessions/seed-snake`, use_tool_fakes: false, enable_text_streaming: false },
      inputs: [{ text: 'Where is the nearest store?' }],
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // The seed's response shape, in JSON names.
    expect(first.body.outputs).toEqual([
      {
        toolCalls: {
          toolCalls: [
            {
              id: expect.any(String),
              tool: `${APP}/tools/get-nearest-store`,
              args: { zip_code: '92031' },
              displayName: 'get_nearest_store',
            },
          ],
        },
        turnIndex: 1,
        turnCompleted: true,
      },
    ]);
    const call = first.body.outputs[0].toolCalls.toolCalls[0];

    // "colocar los mismos valores de id, tool y display_name": the seed's prose spelling.
    const second = await runSession(baton, 'seed-snake', {
      config: { session: `${APP}/sessions/seed-snake` },
      inputs: [
        {
          tool_responses: {
            tool_responses: [
              {
                display_name: 'get_nearest_store',
                id: call.id,
                tool: call.tool,
                response: { name: 'Alibaba', address: '43 Alpha Road, Mountain View, CA 92039, USA' },
              },
            ],
          },
        },
      ],
    });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.outputs).toEqual([
      { text: expect.stringContaining('43 Alpha Road'), turnIndex: 2, turnCompleted: true },
    ]);
    const conversations = await baton.request('GET', `/v1/${APP}/conversations?page_size=1`);
    expect(conversations.status, JSON.stringify(conversations.body)).toBe(200);
    expect(conversations.body.conversations).toHaveLength(1);
  });

  it('refuses a field given in both spellings (INVALID_ARGUMENT naming both) and changes nothing', async () => {
    const before = await created(baton, `${TOOLSETS}?toolsetId=twice`, {
      displayName: 'Twice',
      mcpToolset: { serverAddress: 'https://twice.example.com/mcp/' },
    });
    const listed = (await baton.request('GET', TOOLSETS)).body;

    const body = expectGoogleError(
      await baton.request('POST', `${TOOLSETS}?toolsetId=both`, {
        display_name: 'A',
        displayName: 'B',
        mcpToolset: { serverAddress: 'https://both.example.com/mcp/' },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(body.message).toContain("'toolset.display_name'");
    expect(body.message).toContain("'toolset.displayName'");
    expect(body.details[0]).toMatchObject({
      reason: 'DUPLICATE_FIELD',
      metadata: { fields: 'toolset.display_name,toolset.displayName' },
    });
    expect(violatedField(body)).toBe('toolset.displayName');

    const query = expectGoogleError(
      await baton.request('POST', `${TOOLSETS}?toolset_id=one&toolsetId=two`, {
        displayName: 'Q',
        mcpToolset: { serverAddress: 'https://q.example.com/mcp/' },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(query.message).toMatch(/'toolset_id' and 'toolsetId'|'toolsetId' and 'toolset_id'/);

    const patch = expectGoogleError(
      await baton.request('PATCH', `/v1/${before.name}?updateMask=mcpToolset`, {
        mcp_toolset: { server_address: 'https://a.example.com/mcp/' },
        mcpToolset: { serverAddress: 'https://b.example.com/mcp/' },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(patch.message).toContain("'toolset.mcp_toolset'");
    expect(patch.message).toContain("'toolset.mcpToolset'");

    expect((await baton.request('GET', TOOLSETS)).body).toEqual(listed);
    expect((await read(baton, before.name)).body).toEqual(before);
  });

  it('names a bad field as the client wrote it, in the body, the mask and a session', async () => {
    const address = expectGoogleError(
      await baton.request('POST', `${TOOLSETS}?toolset_id=ftp`, {
        display_name: 'FTP',
        mcp_toolset: { server_address: 'ftp://example.com/mcp/' },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(address)).toBe('toolset.mcp_toolset.server_address');
    expect(address.message).toMatch(/^toolset\.mcp_toolset\.server_address must be an http or https URL/);

    const typo = expectGoogleError(
      await baton.request('POST', `${TOOLSETS}?toolset_id=typo`, {
        display_name: 'Typo',
        mcp_toolset: { server_adress: 'https://example.com/mcp/' },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(typo)).toBe('toolset.mcp_toolset.server_adress');
    expect(typo.message).toContain("'toolset.mcp_toolset'");

    const mask = expectGoogleError(
      await baton.request('PATCH', `/v1/${APP}/toolsets/crm?update_mask=display_nme`, { display_name: 'X' }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(mask)).toBe('update_mask');
    for (const id of ['ftp', 'typo']) expectGoogleError(await read(baton, `${APP}/toolsets/${id}`), 404, 'NOT_FOUND');

    const opened = await runSession(baton, 'wrong-name', {
      config: { session: `${APP}/sessions/wrong-name` },
      inputs: [{ text: 'Which store is nearest?' }],
    });
    const call = opened.body.outputs[0].toolCalls.toolCalls[0];
    const wrong = expectGoogleError(
      await runSession(baton, 'wrong-name', {
        config: { session: `${APP}/sessions/wrong-name` },
        inputs: [
          {
            tool_responses: {
              tool_responses: [{ id: call.id, tool: call.tool, display_name: 'open_settings', response: {} }],
            },
          },
        ],
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(wrong)).toBe('inputs[0].tool_responses.tool_responses[0].display_name');
    const both = expectGoogleError(
      await runSession(baton, 'wrong-name', {
        config: { session: `${APP}/sessions/wrong-name` },
        inputs: [{ tool_responses: { tool_responses: [] }, toolResponses: { toolResponses: [] } }],
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(both.message).toContain("'inputs[0].tool_responses' and 'inputs[0].toolResponses'");
    // The call is still owed: neither request changed the session.
    expect((await baton.request('GET', `/v1/tool-calls/${call.id}`)).body.state).toBe('pending');
  });
});
