import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { appState } from './chat-fixtures.ts';

/** `GET /v1/models` in OpenAI's list format, and authentication on the Chat Completions face. */
describe('Chat Completions: /v1/models and authentication', () => {
  let server: TestBaton;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startTestBaton({
      scripted: { echo: { rules: [{ say: 'echo' }] } },
      agents: [
        {
          name: 'support',
          model: 'scripted:echo',
          description: 'Answers support questions.',
          instructions: 'Help.',
          tools: [],
        },
        { name: 'refund-desk', model: 'scripted:auto', instructions: 'Refunds.', tools: [] },
      ],
    });
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
  });
  afterAll(async () => server?.close());

  it('lists the agents, then the provider models they run on, as OpenAI model objects', async () => {
    // A request naming a provider model makes an implicit agent; it is listed as its model, not as an agent.
    await client.chat.completions.create({ model: 'scripted:auto', messages: [{ role: 'user', content: 'hi' }] });
    const raw = await server.request('GET', '/v1/models');
    expect(raw.status).toBe(200);
    expect(raw.body.object).toBe('list');
    expect(raw.body.data.map((model: { id: string }) => model.id)).toEqual([
      'refund-desk',
      'support',
      'scripted:auto',
      'scripted:echo',
    ]);
    for (const model of raw.body.data) {
      expect(model).toMatchObject({ object: 'model', created: expect.any(Number), owned_by: expect.any(String) });
    }
    expect(raw.body.data[1]).toMatchObject({
      id: 'support',
      owned_by: 'baton',
      baton: { kind: 'agent', model: 'scripted:echo', description: 'Answers support questions.' },
    });
    expect(raw.body.data[2]).toMatchObject({ owned_by: 'scripted', baton: { kind: 'provider_model' } });

    // The official client reads it as a page of models.
    const listed: string[] = [];
    for await (const model of client.models.list()) listed.push(model.id);
    expect(listed).toEqual(raw.body.data.map((model: { id: string }) => model.id));
  });

  it('retrieves one model by id, agent or provider model; any other id is a 404 in OpenAI format', async () => {
    expect(await client.models.retrieve('support')).toMatchObject({
      id: 'support',
      object: 'model',
      owned_by: 'baton',
    });
    expect(await client.models.retrieve('scripted:echo')).toMatchObject({ id: 'scripted:echo', owned_by: 'scripted' });
    await expect(client.models.retrieve('no-such-agent')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const missing = await server.request('GET', '/v1/models/no-such-agent');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: {
        message: expect.stringContaining("'no-such-agent' does not exist"),
        type: 'not_found_error',
        param: 'model',
        code: 'model_not_found',
      },
    });
  });

  it('an agent named as model answers as that agent', async () => {
    const completion = await client.chat.completions.create({
      model: 'support',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(completion.choices[0]?.message.content).toBe('echo');
    expect(completion.model).toBe('support');
  });

  const cases: [string, Record<string, string>, string][] = [
    ['no key', {}, 'missing_api_key'],
    ['a wrong key', { authorization: 'Bearer bk_not_a_real_key_000000000000' }, 'invalid_api_key'],
  ];

  it.each(cases)(
    '%s: 401 in OpenAI format on every route of the face, nothing changed',
    async (_name, headers, code) => {
      const before = await appState(server);
      const requests: [string, string, unknown][] = [
        ['POST', '/v1/chat/completions', { model: 'scripted:auto', messages: [{ role: 'user', content: 'hi' }] }],
        ['GET', '/v1/models', undefined],
        ['GET', '/v1/models/support', undefined],
      ];
      for (const [method, path, body] of requests) {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect(response.status, `${method} ${path}`).toBe(401);
        const error = ((await response.json()) as { error: Record<string, unknown> }).error;
        expect(error).toMatchObject({ code, type: 'authentication_error', param: null, message: expect.any(String) });
      }
      expect(await appState(server)).toBe(before);
    },
  );

  it('the official client raises its AuthenticationError', async () => {
    const stranger = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'bk_wrong_wrong_wrong_wrong', maxRetries: 0 });
    await expect(
      stranger.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
