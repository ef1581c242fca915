/**
 * bearerTokenConfig end to end: an openApiTool whose token is `$context.variables.user_token`,
 * called from CES sessions. The token comes from the session's variables at call time; a session
 * without it gets an error result naming the variable, and the API is never called.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBaton } from '../../helpers/test-baton.ts';
import { runSession } from '../../faces/ces/sessions/session-fixtures.ts';
import { localApiSchema, startLocalApi, type LocalApi } from './local-api.ts';
import { APP, callProgram, createAgent, createTool, LOOPBACK, startToolBaton } from './provider-fixtures.ts';

type Chunk = Record<string, any>;

/** The tool responses a session's outputs report in diagnosticInfo. */
function toolResponses(body: any): Chunk[] {
  return (body.outputs ?? []).flatMap((output: any) =>
    (output.diagnosticInfo?.messages ?? []).flatMap((message: { chunks: Chunk[] }) =>
      message.chunks.filter((chunk) => 'toolResponse' in chunk).map((chunk) => chunk.toolResponse),
    ),
  );
}

function finalText(body: any): string {
  return (body.outputs ?? []).map((output: { text?: string }) => output.text ?? '').join('');
}

describe('a bearer token from the session variables', () => {
  let api: LocalApi;
  let baton: TestBaton;
  const tokens: string[] = [];
  const config = { entryAgent: `${APP}/agents/me-agent` };
  const whoAmI = { text: 'who am i?' };

  beforeAll(async () => {
    api = await startLocalApi({
      acceptsBearer: (token) => {
        tokens.push(token);
        return token === 'abc' || token === 'rotated-token';
      },
    });
    baton = await startToolBaton(callProgram({ 'who am i': { tool: 'getMe' } }), { egressAllow: [LOOPBACK] });
    await createTool(baton, 'me', {
      openApiTool: {
        openApiSchema: localApiSchema(api.origin, ['getMe']),
        apiAuthentication: { bearerTokenConfig: { token: '$context.variables.user_token' } },
      },
    });
    await createAgent(baton, 'me-agent', { tools: ['me'] });
  });
  afterAll(async () => {
    await baton?.close();
    await api?.close();
  });

  it('sends Authorization: Bearer <the variable> and the API answers', async () => {
    const response = await runSession(baton, 'with-token', [{ variables: { user_token: 'abc' } }, whoAmI], config);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const hits = api.hitsOf('/me');
    expect(hits).toHaveLength(1);
    expect(hits[0]?.headers.authorization).toBe('Bearer abc');
    const [answer] = toolResponses(response.body);
    expect(answer).toMatchObject({
      tool: `${APP}/tools/me`,
      displayName: 'getMe',
      response: { output: { user: 'token holder' } },
    });
    expect(finalText(response.body)).toBe('Done: {"user":"token holder"}');
  });

  it('reads the variable at each call: a later input that changes it changes the token', async () => {
    const before = api.hitsOf('/me').length;
    const first = await runSession(baton, 'rotating', [{ variables: { user_token: 'abc' } }, whoAmI], config);
    expect(first.status).toBe(200);
    const second = await runSession(
      baton,
      'rotating',
      [{ variables: { user_token: 'rotated-token' } }, whoAmI],
      config,
    );
    expect(second.status).toBe(200);
    expect(
      api
        .hitsOf('/me')
        .slice(before)
        .map((hit) => hit.headers.authorization),
    ).toEqual(['Bearer abc', 'Bearer rotated-token']);
    expect(finalText(second.body)).toContain('token holder');
  });

  it('without the variable, the result is an error naming it, the API is not called, and the turn completes', async () => {
    const before = api.hitsOf('/me').length;
    const response = await runSession(baton, 'no-token', [whoAmI], config);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(api.hitsOf('/me')).toHaveLength(before);
    const [answer] = toolResponses(response.body);
    const error = JSON.stringify(answer?.response);
    expect(Object.keys(answer?.response ?? {})).toEqual(['error']);
    expect(error).toContain("session variable 'user_token'");
    expect(error).toContain('tool.openApiTool.apiAuthentication.bearerTokenConfig.token');
    expect(error).toContain('has not set');
    expect(finalText(response.body)).toMatch(/^Failed: .*'user_token'/);
  });

  it('a variable that is not text is refused by type, never sent', async () => {
    const before = api.hitsOf('/me').length;
    const response = await runSession(
      baton,
      'object-token',
      [{ variables: { user_token: { nested: 'abc' } } }, whoAmI],
      config,
    );
    expect(response.status).toBe(200);
    expect(api.hitsOf('/me')).toHaveLength(before);
    expect(finalText(response.body)).toMatch(/^Failed: .*'user_token', which is an object/);
  });

  it('the Threads API has no session variables: the same agent gets the error result', async () => {
    const thread = await baton.request('POST', '/v1/threads', { agent: 'me-agent' });
    const reply = await baton.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      role: 'user',
      content: 'who am i?',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.choices[0].message.content).toMatch(/^Failed: .*'user_token', which this session has not set/);
    // Only the accepted tokens above ever reached the API.
    expect(new Set(tokens)).toEqual(new Set(['abc', 'rotated-token']));
  });
});
