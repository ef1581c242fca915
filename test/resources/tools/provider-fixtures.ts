/**
 * Shared setup of the end-to-end tests of server-executed tools: a real Baton (no injected tool
 * provider, so the AppToolProvider runs every call), CES resources created over the REST API,
 * turns run through the Threads API or CES sessions, and small OpenAPI documents for local APIs.
 */
import { expect } from 'vitest';
import type { BatonConfig } from '../../../src/server/config.ts';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { APP, created } from '../../faces/ces/ces-test-client.ts';

export { APP } from '../../faces/ces/ces-test-client.ts';

/** Loopback as an egress.allow entry: where every local test server listens. */
export const LOOPBACK = '127.0.0.1/32';

export interface ScriptedCall {
  tool: string;
  arguments?: Record<string, unknown>;
}

/**
 * A scripted model program: a user message containing a key calls the tools listed for it;
 * an error result is answered with `Failed: …`, a result with `Done: …`, both quoting it.
 */
export function callProgram(calls: Record<string, ScriptedCall | ScriptedCall[]>): object {
  return {
    rules: [
      ...Object.entries(calls).map(([user, call]) =>
        Array.isArray(call) ? { when: { user }, calls: call } : { when: { user }, call },
      ),
      { when: { tool_error: true }, say: 'Failed: {{result}}' },
      { when: { tool_result: true }, say: 'Done: {{result}}' },
      { say: 'ok' },
    ],
  };
}

/** A real Baton whose scripted model `scripted:tools` runs `program`. */
export function startToolBaton(program: object, overrides: Partial<BatonConfig> = {}): Promise<TestBaton> {
  return startTestBaton({ scripted: { tools: program }, ...overrides });
}

export async function createToolset(baton: TestBaton, id: string, body: object): Promise<any> {
  return created(baton, `/v1/${APP}/toolsets?toolsetId=${id}`, body);
}

export async function createTool(baton: TestBaton, id: string, body: object): Promise<any> {
  return created(baton, `/v1/${APP}/tools?toolId=${id}`, body);
}

/** A secret of the app; returns its resource name, the reference auth configs take. */
export async function createSecret(baton: TestBaton, id: string, value: string): Promise<string> {
  const secret = await created(baton, `/v1/${APP}/secrets?secretId=${id}`, { value });
  return secret.name as string;
}

export interface AgentTools {
  tools?: string[];
  toolsets?: { toolset: string; toolIds?: string[] }[];
}

/** A CES agent on the scripted model, using Tool resources and toolsets given by id. */
export async function createAgent(
  baton: TestBaton,
  id: string,
  uses: AgentTools,
  model = 'scripted:tools',
): Promise<void> {
  await created(baton, `/v1/${APP}/agents?agentId=${id}`, {
    displayName: id,
    instruction: 'Use the tools.',
    modelSettings: { model },
    ...(uses.tools ? { tools: uses.tools.map((tool) => `${APP}/tools/${tool}`) } : {}),
    ...(uses.toolsets
      ? { toolsets: uses.toolsets.map((entry) => ({ ...entry, toolset: `${APP}/toolsets/${entry.toolset}` })) }
      : {}),
  });
}

export interface ToolCallView {
  id: string;
  name: string;
  input: unknown;
  executor?: string;
}

export interface ToolResultView {
  tool_call_id: string;
  content: unknown;
  is_error?: boolean;
}

export interface Turn {
  threadId: string;
  /** The final assistant text of the turn. */
  text: string;
  /** The whole reply to POST …/messages. */
  reply: any;
  /** Every message of the thread, as GET …/messages lists them. */
  messages: any[];
  /** The calls the turn made, with `executor: 'server'` for those Baton ran. */
  calls: ToolCallView[];
  results: ToolResultView[];
}

/** Runs one turn of `agent` on a new thread and reads back its transcript. */
export async function ask(baton: TestBaton, agent: string, content: string): Promise<Turn> {
  const thread = await baton.request('POST', '/v1/threads', { agent });
  expect(thread.status, JSON.stringify(thread.body)).toBe(200);
  const threadId: string = thread.body.id;
  const reply = await baton.request('POST', `/v1/threads/${threadId}/messages`, { role: 'user', content });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const listed = await baton.request('GET', `/v1/threads/${threadId}/messages`);
  expect(listed.status).toBe(200);
  const messages: any[] = listed.body.data;
  const calls: ToolCallView[] = messages.flatMap((message) => message.tool_calls ?? []);
  const results: ToolResultView[] = messages.flatMap((message) =>
    message.role === 'user' && Array.isArray(message.content)
      ? message.content.filter((block: { type: string }) => block.type === 'tool_result')
      : [],
  );
  return { threadId, text: reply.body.choices[0].message.content, reply: reply.body, messages, calls, results };
}

/** The turn made exactly one call, Baton ran it, and the turn finished; returns its result. */
export function onlyServerResult(turn: Turn, tool: string): { text: string; isError: boolean } {
  expect(turn.reply.choices[0].finish_reason).toBe('stop');
  expect(turn.reply.choices[0].message.tool_calls).toBeUndefined();
  expect(turn.calls.map((call) => [call.name, call.executor])).toEqual([[tool, 'server']]);
  expect(turn.results).toHaveLength(1);
  const [result] = turn.results;
  expect(result?.tool_call_id).toBe(turn.calls[0]?.id);
  const text = typeof result?.content === 'string' ? result.content : JSON.stringify(result?.content);
  return { text, isError: result?.is_error === true };
}

export interface LocalOperation {
  method: 'get' | 'post';
  path: string;
  operationId: string;
  /** Query parameters, all optional strings. */
  query?: string[];
}

/** A minimal OpenAPI 3.0 document (as JSON text, which is YAML too) for a local test API. */
export function localApiDocument(serverUrl: string, operations: LocalOperation[]): string {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    (paths[operation.path] ??= {})[operation.method] = {
      operationId: operation.operationId,
      summary: `Calls ${operation.path}`,
      parameters: (operation.query ?? []).map((name) => ({
        name,
        in: 'query',
        required: false,
        schema: { type: 'string' },
      })),
      responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
    };
  }
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Local test API', version: '1.0.0' },
    servers: [{ url: serverUrl }],
    paths,
  });
}
