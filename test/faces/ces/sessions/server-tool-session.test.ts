import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientToolDefinition } from '../../../../src/domain/records.ts';
import { RecordingTools } from '../../../helpers/recording-tools.ts';
import { startTestBaton, type TestBaton } from '../../../helpers/test-baton.ts';
import { APP, runSession, seedStoreAgent, toolResponse } from './session-fixtures.ts';

/** Server tools from both kinds of source: a Tool resource and a toolset's tool. */
const serverTools: ClientToolDefinition[] = [
  {
    name: 'lookup_price',
    description: 'Price of a product.',
    parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
    server: { collection: 'tools', resourceId: 'price-api' },
  },
  {
    name: 'search_docs',
    description: 'Searches the store handbook.',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    server: { collection: 'toolsets', resourceId: 'docs-mcp', toolName: 'search' },
  },
  {
    name: 'refund',
    description: 'Refund an amount.',
    parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
    server: { collection: 'tools', resourceId: 'refunds' },
    requireApproval: true,
  },
];

const program = {
  rules: [
    {
      when: { user: 'mixed' },
      calls: [
        { tool: 'get_nearest_store', arguments: { zip_code: '92031' } },
        { tool: 'search_docs', arguments: { query: 'opening hours' } },
        { tool: 'get_nearest_store', arguments: { zip_code: '10001' } },
      ],
    },
    {
      when: { user: 'both' },
      calls: [
        { tool: 'refund', arguments: { amount: 7 } },
        { tool: 'get_nearest_store', arguments: { zip_code: '92031' } },
      ],
    },
    { when: { user: 'refund' }, call: { tool: 'refund', arguments: { amount: 5 } } },
    { when: { user: 'price' }, call: { tool: 'lookup_price', arguments: { sku: 'B-2' } } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

type Chunk = Record<string, any>;
const chunksOf = (conversation: { turns: { messages: { role: string; chunks: Chunk[] }[] }[] }): Chunk[] =>
  conversation.turns.flatMap((turn) =>
    turn.messages.flatMap((message) => message.chunks.map((chunk) => ({ role: message.role, ...chunk }))),
  );
const errorInfo = (body: any) =>
  body.error.details.find((detail: { '@type': string }) => detail['@type'].endsWith('ErrorInfo'));

describe('CES sessions: server-executed tools and approvals', () => {
  let server: TestBaton;
  const tools = new RecordingTools(serverTools);
  const searchRef = { toolsetTool: { toolset: `${APP}/toolsets/docs-mcp`, toolId: 'search' } };
  const storeTool = `${APP}/tools/get-nearest-store`;

  beforeAll(async () => {
    server = await startTestBaton({ scripted: { desk: program } }, { tools });
    await seedStoreAgent(server, 'desk', 'scripted:desk');
  });
  afterAll(async () => server.close());

  it('lists only client calls as toolCalls, runs the server call once, and reports it in diagnosticInfo and the conversation', async () => {
    const first = await runSession(server, 'mixed', [{ text: 'a mixed question' }]);
    expect(first.status).toBe(200);
    expect(first.body.outputs).toHaveLength(1);
    const [paused] = first.body.outputs;
    expect(paused.toolCalls.toolCalls.map((call: Chunk) => [call.tool, call.args.zip_code])).toEqual([
      [storeTool, '92031'],
      [storeTool, '10001'],
    ]);
    expect(paused).toMatchObject({ turnIndex: 1, turnCompleted: true });
    // The server call ran at once; the client sees it (with its toolset name) but is not asked to answer it.
    expect(tools.count('search_docs')).toBe(1);
    expect(paused.diagnosticInfo.messages).toEqual([
      {
        role: 'desk',
        chunks: [
          {
            toolCall: {
              id: expect.stringMatching(/^call_/),
              ...searchRef,
              displayName: 'search_docs',
              args: { query: 'opening hours' },
            },
          },
        ],
        eventTime: expect.any(String),
      },
    ]);
    const serverCallId: string = paused.diagnosticInfo.messages[0].chunks[0].toolCall.id;

    // A response for the server call is refused: it is not the client's to answer.
    const calls = paused.toolCalls.toolCalls;
    const stray = await runSession(server, 'mixed', [
      { toolResponses: { toolResponses: [{ id: serverCallId, ...searchRef, response: { output: 'mine' } }] } },
    ]);
    expect(stray.status).toBe(400);
    expect(errorInfo(stray.body)).toMatchObject({
      reason: 'NOT_A_CLIENT_TOOL_CALL',
      metadata: { toolCallId: serverCallId },
    });

    const resumed = await runSession(server, 'mixed', [
      {
        toolResponses: {
          toolResponses: [toolResponse(calls[0], { output: 'Store A' }), toolResponse(calls[1], { output: 'Store B' })],
        },
      },
    ]);
    expect(resumed.status).toBe(200);
    expect(tools.count('search_docs')).toBe(1);
    expect(resumed.body.outputs).toEqual([
      {
        text: expect.stringContaining('Done'),
        turnIndex: 2,
        turnCompleted: true,
        diagnosticInfo: {
          messages: [
            {
              role: 'desk',
              chunks: [
                {
                  toolCall: {
                    id: serverCallId,
                    ...searchRef,
                    displayName: 'search_docs',
                    args: { query: 'opening hours' },
                  },
                },
              ],
              eventTime: expect.any(String),
            },
            {
              role: 'desk',
              chunks: [
                {
                  toolResponse: {
                    id: serverCallId,
                    ...searchRef,
                    displayName: 'search_docs',
                    response: { output: { ran: 'search_docs', args: { query: 'opening hours' } } },
                  },
                },
              ],
              eventTime: expect.any(String),
            },
          ],
        },
      },
    ]);

    const conversation = await server.request('GET', `/v1/${APP}/conversations/mixed`);
    expect(conversation.status).toBe(200);
    const chunks = chunksOf(conversation.body);
    const toolCalls = chunks.filter((chunk) => 'toolCall' in chunk);
    expect(
      toolCalls.map((chunk) => [chunk.role, chunk.toolCall.id, chunk.toolCall.tool ?? chunk.toolCall.toolsetTool]),
    ).toEqual([
      ['desk', calls[0].id, storeTool],
      ['desk', serverCallId, searchRef.toolsetTool],
      ['desk', calls[1].id, storeTool],
    ]);
    const responses = chunks.filter((chunk) => 'toolResponse' in chunk);
    expect(responses.map((chunk) => [chunk.role, chunk.toolResponse.id])).toEqual([
      ['user', calls[0].id],
      ['desk', serverCallId],
      ['user', calls[1].id],
    ]);
    expect(responses[1]?.toolResponse).toEqual({
      id: serverCallId,
      ...searchRef,
      displayName: 'search_docs',
      response: { output: { ran: 'search_docs', args: { query: 'opening hours' } } },
    });
    // The results written together stay in the turn the client's responses opened.
    expect(conversation.body.turns).toHaveLength(2);
  });

  it('carries the server call and its response on the last frame of :streamRunSession only', async () => {
    const response = await fetch(`${server.url}/v1/${APP}/sessions/priced:streamRunSession`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ config: { session: `${APP}/sessions/priced` }, inputs: [{ text: 'what is the price?' }] }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const frames = (await response.text())
      .split('\n\n')
      .filter((frame) => frame !== '')
      .map((frame) => JSON.parse(frame.slice('data: '.length)));
    const outputs = frames.flatMap((frame) => frame.outputs);
    expect(outputs.filter((output) => 'diagnosticInfo' in output)).toHaveLength(1);
    expect(outputs.some((output) => 'toolCalls' in output)).toBe(false);
    const last = frames.at(-1).outputs[0];
    expect(last).toMatchObject({ text: expect.stringContaining('B-2'), turnIndex: 1, turnCompleted: true });
    const tool = `${APP}/tools/price-api`;
    expect(last.diagnosticInfo.messages.map((message: { chunks: Chunk[] }) => message.chunks)).toEqual([
      [{ toolCall: { id: expect.any(String), tool, displayName: 'lookup_price', args: { sku: 'B-2' } } }],
      [
        {
          toolResponse: {
            id: expect.any(String),
            tool,
            displayName: 'lookup_price',
            response: { output: { ran: 'lookup_price', args: { sku: 'B-2' } } },
          },
        },
      ],
    ]);
  });

  it('pauses on an approval, refuses input until a person decides it, then shows the result in the conversation', async () => {
    const first = await runSession(server, 'approval', [{ text: 'refund me please' }]);
    expect(first.status).toBe(200);
    const refundTool = `${APP}/tools/refunds`;
    expect(first.body.outputs).toEqual([
      {
        turnIndex: 1,
        turnCompleted: true,
        diagnosticInfo: {
          messages: [
            {
              role: 'desk',
              chunks: [
                {
                  toolCall: {
                    id: expect.stringMatching(/^call_/),
                    tool: refundTool,
                    displayName: 'refund',
                    args: { amount: 5 },
                  },
                },
              ],
              eventTime: expect.any(String),
            },
            {
              role: 'system',
              chunks: [
                { text: expect.stringContaining('/decision') },
                {
                  payload: {
                    awaitingApproval: {
                      toolCallId: expect.any(String),
                      toolName: 'refund',
                      decide: expect.stringMatching(/^POST \/v1\/tool-calls\/call_.+\/decision$/),
                    },
                  },
                },
              ],
              eventTime: expect.any(String),
            },
          ],
        },
      },
    ]);
    const id: string = first.body.outputs[0].diagnosticInfo.messages[0].chunks[0].toolCall.id;
    expect(first.body.outputs[0].diagnosticInfo.messages[1].chunks[1].payload.awaitingApproval.toolCallId).toBe(id);
    expect(tools.count('refund')).toBe(0);

    const text = await runSession(server, 'approval', [{ text: 'hello?' }]);
    expect(text.status).toBe(400);
    expect(text.body.error.status).toBe('FAILED_PRECONDITION');
    expect(text.body.error.message).toContain('/v1/tool-calls/{id}/decision');
    expect(errorInfo(text.body)).toMatchObject({ reason: 'APPROVAL_PENDING', metadata: { pendingApprovalIds: id } });

    const answer = await runSession(server, 'approval', [
      { toolResponses: { toolResponses: [{ id, tool: refundTool, response: { output: 'approved by me' } }] } },
    ]);
    expect(answer.status).toBe(400);
    expect(answer.body.error.status).toBe('INVALID_ARGUMENT');
    expect(answer.body.error.message).toContain(`POST /v1/tool-calls/${id}/decision`);
    expect(errorInfo(answer.body)).toMatchObject({ reason: 'NOT_A_CLIENT_TOOL_CALL' });
    expect(tools.count('refund')).toBe(0);

    const decision = await server.request('POST', `/v1/tool-calls/${id}/decision`, { approve: true });
    expect(decision.status).toBe(200);
    await server.baton.engine.idle();
    expect(tools.count('refund')).toBe(1);

    const conversation = await server.request('GET', `/v1/${APP}/conversations/approval`);
    const chunks = chunksOf(conversation.body);
    expect(chunks.filter((chunk) => 'toolCall' in chunk || 'toolResponse' in chunk)).toEqual([
      { role: 'desk', toolCall: { id, tool: refundTool, displayName: 'refund', args: { amount: 5 } } },
      {
        role: 'desk',
        toolResponse: {
          id,
          tool: refundTool,
          displayName: 'refund',
          response: { output: { ran: 'refund', args: { amount: 5 } } },
        },
      },
    ]);
    expect(chunks.at(-1)).toEqual({ role: 'desk', text: expect.stringContaining('Done') });
    // Decided and finished: the session takes input again.
    const after = await runSession(server, 'approval', [{ text: 'thanks' }]);
    expect(after.status).toBe(200);
  });

  it('keeps client responses sent while an approval of the same step is undecided, and says what is left', async () => {
    const first = await runSession(server, 'both', [{ text: 'both at once' }]);
    const [paused] = first.body.outputs;
    const [call] = paused.toolCalls.toolCalls;
    expect(paused.toolCalls.toolCalls).toHaveLength(1);
    const approvalId: string = paused.diagnosticInfo.messages[0].chunks[0].toolCall.id;

    // Text with the response cannot go on while the approval is undecided.
    const withText = await runSession(server, 'both', [
      { toolResponses: { toolResponses: [toolResponse(call, { output: 'Store A' })] } },
      { text: 'and?' },
    ]);
    expect(errorInfo(withText.body)).toMatchObject({
      reason: 'APPROVAL_PENDING',
      metadata: { pendingApprovalIds: approvalId },
    });

    const answered = await runSession(server, 'both', [
      { toolResponses: { toolResponses: [toolResponse(call, { output: 'Store A' })] } },
    ]);
    expect(answered.status).toBe(200);
    expect(answered.body.outputs).toHaveLength(1);
    const [waiting] = answered.body.outputs;
    expect(waiting).toMatchObject({ turnIndex: 2, turnCompleted: true });
    expect(waiting.toolCalls).toBeUndefined();
    expect(
      waiting.diagnosticInfo.messages.map((message: { role: string; chunks: Chunk[] }) => [
        message.role,
        Object.keys(message.chunks[0] ?? {})[0],
      ]),
    ).toEqual([
      ['desk', 'toolCall'],
      ['system', 'text'],
    ]);
    expect((await server.request('GET', `/v1/tool-calls/${call.id}`)).body.state).toBe('completed');

    const denied = await server.request('POST', `/v1/tool-calls/${approvalId}/decision`, {
      approve: false,
      reason: 'too much',
    });
    expect(denied.status).toBe(200);
    await server.baton.engine.idle();
    const chunks = chunksOf((await server.request('GET', `/v1/${APP}/conversations/both`)).body);
    const responses = chunks.filter((chunk) => 'toolResponse' in chunk);
    expect(
      responses.map((chunk) => [chunk.role, chunk.toolResponse.id, Object.keys(chunk.toolResponse.response)[0]]),
    ).toEqual([
      ['desk', approvalId, 'error'],
      ['user', call.id, 'output'],
    ]);
    expect(tools.count('refund')).toBe(1);
  });
});
