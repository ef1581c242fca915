import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leastRoleFor, roleAllows } from '../../src/domain/access.ts';
import type { ApiKeyRole } from '../../src/domain/records.ts';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { ROUTE_ACCESS, routeCapability } from '../../src/server/route-access.ts';
import { ADMIN_KEY, startTestBaton, type TestBaton, type TestResponse } from '../helpers/test-baton.ts';

/**
 * Every API route × every role × own app and another app's. A key below the route's role gets 403
 * `insufficient_role` in the face's format; a key that may act reaches the handler on its own app
 * (the probe is built to fail validation or to miss, so nothing changes); and any key on another
 * app's resource gets a 404 (or the 403 of its role), leaving that app's data as it was.
 */

interface Tenant {
  id: string;
  name: string;
  /** `projects/default/locations/global/apps/{name}` */
  resource: string;
  keys: Record<Exclude<ApiKeyRole, 'operator'>, string>;
  keyIds: Record<Exclude<ApiKeyRole, 'operator'>, string>;
  agent: string;
  threadId: string;
  callId: string;
  responseId: string;
  cesAgent: string;
  cesTool: string;
  cesToolset: string;
  cesSecret: string;
  conversation: string;
  /** A webhook endpoint of the app (`whep_…`). */
  webhook: string;
}

interface Probe {
  /** The request on the caller's own app: reaches the handler and changes nothing. */
  own: { path: string; body?: unknown };
  /** The request aimed at the other tenant's resources (absent when the route names no resource). */
  foreign?: { path: string; body?: unknown; status?: number };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One probe per route and method; the test fails if ROUTE_ACCESS gains a route this table lacks. */
function probes(own: Tenant, other: Tenant): Record<string, Partial<Record<Method, Probe>>> {
  const ces = `/v1/${own.resource}`;
  const foreignCes = `/v1/${other.resource}`;
  const CES_APP = '/v1/projects/:project/locations/:location/apps/:app';
  const resource = (collection: string, id: (tenant: Tenant) => string, validBody: unknown) => ({
    GET: {
      own: { path: `${ces}/${collection}/${id(own)}` },
      foreign: { path: `${foreignCes}/${collection}/${id(other)}` },
    },
    PATCH: {
      own: { path: `${ces}/${collection}/${id(own)}?updateMask=bogusField`, body: {} },
      foreign: { path: `${foreignCes}/${collection}/${id(other)}?updateMask=displayName`, body: validBody },
    },
    DELETE: {
      own: { path: `${ces}/${collection}/missing-${collection}` },
      foreign: { path: `${foreignCes}/${collection}/${id(other)}` },
    },
  });
  const collection = (name: string, validBody: unknown) => ({
    GET: { own: { path: `${ces}/${name}` }, foreign: { path: `${foreignCes}/${name}` } },
    POST: { own: { path: `${ces}/${name}`, body: [] }, foreign: { path: `${foreignCes}/${name}`, body: validBody } },
  });
  return {
    '/v1/apps': { POST: { own: { path: '/v1/apps', body: { name: 'not a valid name!' } } } },
    '/v1/me': { GET: { own: { path: '/v1/me' } } },
    '/v1/api-keys': {
      GET: { own: { path: '/v1/api-keys' }, foreign: { path: `/v1/api-keys?app_id=${other.id}` } },
      POST: {
        own: { path: '/v1/api-keys', body: { role: 'emperor' } },
        foreign: { path: '/v1/api-keys', body: { app_id: other.id } },
      },
    },
    '/v1/api-keys/:id': {
      DELETE: { own: { path: '/v1/api-keys/key_missing' }, foreign: { path: `/v1/api-keys/${other.keyIds.member}` } },
    },
    '/v1/api-keys/:id/rotate': {
      POST: {
        own: { path: `/v1/api-keys/${own.keyIds.reader}/rotate`, body: { grace_seconds: -1 } },
        foreign: { path: `/v1/api-keys/${other.keyIds.member}/rotate`, body: {} },
      },
    },
    '/v1/webhook-endpoints': {
      GET: { own: { path: '/v1/webhook-endpoints' } },
      POST: { own: { path: '/v1/webhook-endpoints', body: { url: 'ftp://nowhere' } } },
    },
    '/v1/webhook-endpoints/:id': {
      GET: {
        own: { path: '/v1/webhook-endpoints/whep_missing' },
        foreign: { path: `/v1/webhook-endpoints/${other.webhook}` },
      },
      PATCH: {
        own: { path: `/v1/webhook-endpoints/${own.webhook}`, body: { event_types: ['nope'] } },
        foreign: { path: `/v1/webhook-endpoints/${other.webhook}`, body: { enabled: false } },
      },
      DELETE: {
        own: { path: '/v1/webhook-endpoints/whep_missing' },
        foreign: { path: `/v1/webhook-endpoints/${other.webhook}` },
      },
    },
    '/v1/webhook-endpoints/:id/rotate-secret': {
      POST: {
        own: { path: `/v1/webhook-endpoints/${own.webhook}/rotate-secret`, body: { grace_seconds: -1 } },
        foreign: { path: `/v1/webhook-endpoints/${other.webhook}/rotate-secret`, body: {} },
      },
    },
    '/v1/webhook-endpoints/:id/deliveries': {
      GET: {
        own: { path: `/v1/webhook-endpoints/${own.webhook}/deliveries?limit=0` },
        foreign: { path: `/v1/webhook-endpoints/${other.webhook}/deliveries` },
      },
    },
    '/v1/webhook-endpoints/:id/deliveries/:delivery/resend': {
      POST: {
        own: { path: `/v1/webhook-endpoints/${own.webhook}/deliveries/whdl_missing/resend`, body: {} },
        foreign: { path: `/v1/webhook-endpoints/${other.webhook}/deliveries/whdl_missing/resend`, body: {} },
      },
    },
    '/v1/agents': { GET: { own: { path: '/v1/agents' } }, POST: { own: { path: '/v1/agents', body: {} } } },
    '/v1/agents/:name': {
      GET: { own: { path: `/v1/agents/${own.agent}` }, foreign: { path: `/v1/agents/${other.agent}` } },
      PUT: {
        own: { path: `/v1/agents/${own.agent}`, body: { bogus: true } },
        foreign: {
          path: `/v1/agents/${other.agent}`,
          body: { ...DEMO_AGENT, name: other.agent, instructions: 'Stolen.' },
        },
      },
      DELETE: { own: { path: '/v1/agents/missing-agent' }, foreign: { path: `/v1/agents/${other.agent}` } },
    },
    '/v1/threads': {
      GET: { own: { path: '/v1/threads' } },
      POST: {
        own: { path: '/v1/threads', body: { bogus: 1 } },
        foreign: { path: '/v1/threads', body: { agent: other.agent } },
      },
    },
    '/v1/threads/:id': {
      GET: { own: { path: `/v1/threads/${own.threadId}` }, foreign: { path: `/v1/threads/${other.threadId}` } },
      DELETE: { own: { path: '/v1/threads/thread_missing' }, foreign: { path: `/v1/threads/${other.threadId}` } },
    },
    '/v1/threads/:id/export': {
      GET: {
        own: { path: '/v1/threads/thread_missing/export' },
        foreign: { path: `/v1/threads/${other.threadId}/export` },
      },
    },
    '/v1/exports/conversations': { GET: { own: { path: '/v1/exports/conversations?bogus=1' } } },
    '/v1/audit-events': { GET: { own: { path: '/v1/audit-events?limit=0' } } },
    '/v1/threads/:id/messages': {
      GET: {
        own: { path: `/v1/threads/${own.threadId}/messages` },
        foreign: { path: `/v1/threads/${other.threadId}/messages` },
      },
      POST: {
        own: { path: `/v1/threads/${own.threadId}/messages`, body: { role: 'wizard' } },
        foreign: {
          path: `/v1/threads/${other.threadId}/messages`,
          body: {
            role: 'user',
            content: [{ type: 'tool_result', tool_call_id: other.callId, content: '{"approved":true}' }],
          },
        },
      },
    },
    '/v1/threads/:id/cancel': {
      POST: {
        own: { path: '/v1/threads/thread_missing/cancel', body: {} },
        foreign: { path: `/v1/threads/${other.threadId}/cancel`, body: {} },
      },
    },
    '/v1/tool-calls': { GET: { own: { path: '/v1/tool-calls' } } },
    '/v1/tool-calls/events': { GET: { own: { path: '/v1/tool-calls/events?bogus=1' } } },
    '/v1/tool-calls/:id': {
      GET: { own: { path: `/v1/tool-calls/${own.callId}` }, foreign: { path: `/v1/tool-calls/${other.callId}` } },
    },
    '/v1/tool-calls/:id/tool': {
      GET: {
        own: { path: `/v1/tool-calls/${own.callId}/tool` },
        foreign: { path: `/v1/tool-calls/${other.callId}/tool` },
      },
    },
    '/v1/tool-calls/:id/result': {
      POST: {
        own: { path: `/v1/tool-calls/${own.callId}/result`, body: { bogus: 1 } },
        foreign: { path: `/v1/tool-calls/${other.callId}/result`, body: { content: '{"approved":true}' } },
      },
    },
    '/v1/tool-calls/claim': {
      POST: { own: { path: '/v1/tool-calls/claim', body: { bogus: 1 } } },
    },
    '/v1/tool-calls/:id/lease': {
      POST: {
        own: { path: `/v1/tool-calls/${own.callId}/lease`, body: { bogus: 1 } },
        foreign: { path: `/v1/tool-calls/${other.callId}/lease`, body: { lease_token: 'lease_guess' } },
      },
    },
    '/v1/tool-calls/:id/release': {
      POST: {
        own: { path: `/v1/tool-calls/${own.callId}/release`, body: { bogus: 1 } },
        foreign: { path: `/v1/tool-calls/${other.callId}/release`, body: { lease_token: 'lease_guess' } },
      },
    },
    '/v1/tool-calls/:id/decision': {
      POST: {
        own: { path: `/v1/tool-calls/${own.callId}/decision`, body: { approve: 'maybe' } },
        foreign: { path: `/v1/tool-calls/${other.callId}/decision`, body: { approve: false } },
      },
    },
    '/v1/responses': {
      POST: {
        own: { path: '/v1/responses', body: { model: own.agent, input: 7 } },
        // OpenAI answers an unknown previous_response_id with 400 previous_response_not_found.
        foreign: {
          path: '/v1/responses',
          body: { model: own.agent, input: 'hi', previous_response_id: other.responseId },
          status: 400,
        },
      },
    },
    '/v1/responses/compact': { POST: { own: { path: '/v1/responses/compact', body: { bogus: 1 } } } },
    '/v1/responses/:id': {
      GET: { own: { path: `/v1/responses/${own.responseId}` }, foreign: { path: `/v1/responses/${other.responseId}` } },
      DELETE: { own: { path: '/v1/responses/resp_missing' }, foreign: { path: `/v1/responses/${other.responseId}` } },
    },
    '/v1/responses/:id/cancel': {
      POST: {
        own: { path: '/v1/responses/resp_missing/cancel' },
        foreign: { path: `/v1/responses/${other.responseId}/cancel` },
      },
    },
    '/v1/responses/:id/export': {
      GET: {
        own: { path: '/v1/responses/resp_missing/export' },
        foreign: { path: `/v1/responses/${other.responseId}/export` },
      },
    },
    '/v1/responses/:id/input_items': {
      GET: {
        own: { path: `/v1/responses/${own.responseId}/input_items` },
        foreign: { path: `/v1/responses/${other.responseId}/input_items` },
      },
    },
    // The Nodexa dialect of the same routes (src/faces/responses/response-dialect.ts).
    '/nodexa/v1/responses': {
      POST: {
        own: { path: '/nodexa/v1/responses', body: { model: own.agent, input: 7 } },
        foreign: {
          path: '/nodexa/v1/responses',
          body: { model: own.agent, input: 'hi', previous_response_id: other.responseId },
          status: 400,
        },
      },
    },
    '/nodexa/v1/responses/compact': { POST: { own: { path: '/nodexa/v1/responses/compact', body: { bogus: 1 } } } },
    '/nodexa/v1/responses/:id': {
      GET: {
        own: { path: `/nodexa/v1/responses/${own.responseId}` },
        foreign: { path: `/nodexa/v1/responses/${other.responseId}` },
      },
      DELETE: {
        own: { path: '/nodexa/v1/responses/resp_missing' },
        foreign: { path: `/nodexa/v1/responses/${other.responseId}` },
      },
    },
    '/nodexa/v1/responses/:id/cancel': {
      POST: {
        own: { path: '/nodexa/v1/responses/resp_missing/cancel' },
        foreign: { path: `/nodexa/v1/responses/${other.responseId}/cancel` },
      },
    },
    '/nodexa/v1/responses/:id/export': {
      GET: {
        own: { path: '/nodexa/v1/responses/resp_missing/export' },
        foreign: { path: `/nodexa/v1/responses/${other.responseId}/export` },
      },
    },
    '/nodexa/v1/responses/:id/input_items': {
      GET: {
        own: { path: `/nodexa/v1/responses/${own.responseId}/input_items` },
        foreign: { path: `/nodexa/v1/responses/${other.responseId}/input_items` },
      },
    },
    '/v1/chat/completions': {
      POST: {
        own: { path: '/v1/chat/completions', body: { messages: [] } },
        // Another app's agent as model, answering another app's pending call: neither is found.
        foreign: {
          path: '/v1/chat/completions',
          body: {
            model: other.agent,
            messages: [
              { role: 'user', content: 'I need approval to process a $500 refund' },
              {
                role: 'assistant',
                content: null,
                tool_calls: [
                  { id: other.callId, type: 'function', function: { name: 'request_approval', arguments: '{}' } },
                ],
              },
              { role: 'tool', tool_call_id: other.callId, content: '{"approved":true}' },
            ],
          },
        },
      },
    },
    '/v1/models': { GET: { own: { path: '/v1/models' } } },
    '/v1/models/*': {
      GET: { own: { path: `/v1/models/${own.agent}` }, foreign: { path: `/v1/models/${other.agent}` } },
    },
    '/v1/projects/:project/locations/:location/apps': {
      GET: { own: { path: '/v1/projects/default/locations/global/apps' } },
      POST: { own: { path: '/v1/projects/default/locations/global/apps', body: [] } },
    },
    [CES_APP]: {
      GET: { own: { path: ces }, foreign: { path: foreignCes } },
      PATCH: {
        own: { path: `${ces}?updateMask=bogusField`, body: {} },
        foreign: { path: `${foreignCes}?updateMask=displayName`, body: { displayName: 'Taken over' } },
      },
      DELETE: {
        own: { path: '/v1/projects/default/locations/global/apps/missing-app' },
        foreign: { path: foreignCes },
      },
    },
    [`${CES_APP}/agents`]: collection('agents', {
      displayName: 'Planted',
      instruction: 'x',
      modelSettings: { model: 'scripted:auto' },
    }),
    [`${CES_APP}/agents/:id`]: resource('agents', (tenant) => tenant.cesAgent, { displayName: 'Renamed' }),
    [`${CES_APP}/tools`]: collection('tools', { clientFunction: { name: 'planted', description: 'x' } }),
    [`${CES_APP}/tools/:id`]: resource('tools', (tenant) => tenant.cesTool, { displayName: 'Renamed' }),
    [`${CES_APP}/toolsets`]: collection('toolsets', {
      displayName: 'Planted',
      mcpToolset: { serverAddress: 'https://x.example/mcp' },
    }),
    [`${CES_APP}/toolsets/:id`]: resource('toolsets', (tenant) => tenant.cesToolset, { displayName: 'Renamed' }),
    [`${CES_APP}/toolsets/:toolsetAction`]: {
      POST: {
        own: { path: `${ces}/toolsets/missing:retrieveTools`, body: {} },
        foreign: { path: `${foreignCes}/toolsets/${other.cesToolset}:retrieveTools`, body: {} },
      },
    },
    [`${CES_APP}/secrets`]: collection('secrets', { value: 'planted' }),
    [`${CES_APP}/secrets/:id`]: resource('secrets', (tenant) => tenant.cesSecret, { displayName: 'Renamed' }),
    [`${CES_APP}/sessions/:sessionAction`]: {
      POST: {
        own: { path: `${ces}/sessions/s1:runSession`, body: { bogus: 1 } },
        foreign: {
          path: `${foreignCes}/sessions/s1:runSession`,
          body: { config: { session: `${other.resource}/sessions/s1` }, inputs: [{ text: 'hi' }] },
        },
      },
    },
    [`${CES_APP}/conversations`]: {
      GET: { own: { path: `${ces}/conversations` }, foreign: { path: `${foreignCes}/conversations` } },
    },
    [`${CES_APP}/conversations/:conversation`]: {
      GET: {
        own: { path: `${ces}/conversations/${own.conversation}` },
        foreign: { path: `${foreignCes}/conversations/${other.conversation}` },
      },
      DELETE: {
        own: { path: `${ces}/conversations/missing-conversation` },
        foreign: { path: `${foreignCes}/conversations/${other.conversation}` },
      },
    },
  };
}

/** The error code, whatever the face's format: native/OpenAI `{error:{code}}`, google.rpc `{error:{status, details}}`. */
function errorOf(prefix: string, response: TestResponse): { code: string | undefined; face: string } {
  const error = response.body?.error;
  if (prefix.startsWith('/v1/projects/')) {
    expect(error, JSON.stringify(response.body)).toMatchObject({ code: response.status, status: expect.any(String) });
    const reason = (error.details ?? []).find((detail: any) => detail.reason)?.reason as string | undefined;
    return { code: reason?.toLowerCase(), face: 'ces' };
  }
  expect(error, JSON.stringify(response.body)).toMatchObject({ message: expect.any(String) });
  const responses = prefix.startsWith('/v1/responses') || prefix.startsWith('/nodexa/v1/');
  return { code: error.code, face: responses ? 'responses' : 'native' };
}

const ROLES: Exclude<ApiKeyRole, 'operator'>[] = ['reader', 'member', 'admin'];

describe('every route × every role × own and another app', () => {
  let baton: TestBaton;
  let a: Tenant;
  let b: Tenant;

  const send = (key: string, method: string, path: string, body?: unknown) =>
    baton.request(method, path, body, { authorization: `Bearer ${key}` });

  async function tenant(name: string): Promise<Tenant> {
    const created = await baton.request('POST', '/v1/apps', { name });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.api_key.role).toBe('admin');
    const admin = created.body.api_key.key as string;
    const keys = { admin } as Tenant['keys'];
    const keyIds = { admin: created.body.api_key.id } as Tenant['keyIds'];
    for (const role of ['member', 'reader'] as const) {
      const key = await send(admin, 'POST', '/v1/api-keys', { role, name: `${name} ${role}` });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      keys[role] = key.body.key;
      keyIds[role] = key.body.id;
    }
    const agent = `${name}-desk`;
    expect((await send(admin, 'POST', '/v1/agents', { ...DEMO_AGENT, name: agent })).status).toBe(201);
    const thread = await send(keys.member, 'POST', '/v1/threads', { agent });
    const paused = await send(keys.member, 'POST', `/v1/threads/${thread.body.id}/messages`, {
      role: 'user',
      content: 'I need approval to process a $500 refund',
    });
    const callId = paused.body.choices[0].message.tool_calls[0].id as string;
    const response = await send(keys.member, 'POST', '/v1/responses', { model: agent, input: 'hello' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const resource = `projects/default/locations/global/apps/${name}`;
    const ces = async (path: string, body: unknown) => {
      const made = await send(admin, 'POST', `/v1/${resource}/${path}`, body);
      expect(made.status, JSON.stringify(made.body)).toBe(200);
    };
    await ces('secrets?secretId=token', { value: `secret-of-${name}` });
    await ces('tools?toolId=lookup', { clientFunction: { name: 'lookup', description: 'Looks up.' } });
    await ces('toolsets?toolsetId=remote', {
      displayName: 'Remote',
      mcpToolset: { serverAddress: 'https://tools.example.com/mcp/' },
    });
    await ces('agents?agentId=helper', {
      displayName: 'Helper',
      instruction: 'Help.',
      modelSettings: { model: 'scripted:auto' },
    });
    const session = await send(keys.member, 'POST', `/v1/${resource}/sessions/first:runSession`, {
      config: { session: `${resource}/sessions/first` },
      inputs: [{ text: 'hello' }],
    });
    expect(session.status, JSON.stringify(session.body)).toBeLessThan(500);
    // Only endpoint.disabled: nothing is ever sent to this (unreachable) address during the test.
    const webhook = await send(admin, 'POST', '/v1/webhook-endpoints', {
      url: 'https://hooks.example.com/baton',
      event_types: ['endpoint.disabled'],
    });
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    const conversations = await send(admin, 'GET', `/v1/${resource}/conversations`);
    const conversation =
      String(conversations.body.conversations?.[0]?.name ?? '')
        .split('/')
        .pop() || 'none';
    return {
      id: created.body.id,
      name,
      resource,
      keys,
      keyIds,
      agent,
      threadId: thread.body.id,
      callId,
      responseId: response.body.id,
      cesAgent: 'helper',
      cesTool: 'lookup',
      cesToolset: 'remote',
      cesSecret: 'token',
      conversation,
      webhook: webhook.body.id,
    };
  }

  /** What another tenant could have touched: compared before and after the attacks. */
  async function snapshot(t: Tenant): Promise<string> {
    const reads = [
      `/v1/agents/${t.agent}`,
      `/v1/threads/${t.threadId}`,
      `/v1/threads/${t.threadId}/messages`,
      `/v1/tool-calls/${t.callId}`,
      `/v1/responses/${t.responseId}`,
      `/v1/${t.resource}`,
      `/v1/${t.resource}/agents`,
      `/v1/${t.resource}/tools`,
      `/v1/${t.resource}/toolsets`,
      `/v1/${t.resource}/secrets`,
      `/v1/${t.resource}/conversations`,
      '/v1/api-keys',
      `/v1/webhook-endpoints/${t.webhook}`,
    ];
    const bodies = [];
    for (const path of reads) {
      const read = await send(t.keys.admin, 'GET', path);
      expect(read.status, `${path}: ${JSON.stringify(read.body)}`).toBe(200);
      bodies.push(JSON.stringify(read.body, (key, value) => (key === 'last_used_at' ? undefined : value)));
    }
    return bodies.join('\n');
  }

  beforeAll(async () => {
    baton = await startTestBaton();
    a = await tenant('tenant-a');
    b = await tenant('tenant-b');
  }, 60_000);
  afterAll(async () => {
    await baton?.close();
  });

  it('has a probe for every route of the access table', () => {
    const table = probes(a, b);
    for (const [route, methods] of Object.entries(ROUTE_ACCESS)) {
      if (route === '/mcp') continue; // one route for many tools: test/faces/mcp/mcp-roles.test.ts
      for (const method of Object.keys(methods))
        expect(table[route]?.[method as Method], `${method} ${route}`).toBeDefined();
    }
  });

  it('refuses each role below the route with 403 in the face format, and lets each role at or above it through', async () => {
    const failures: string[] = [];
    for (const [route, methods] of Object.entries(probes(a, b))) {
      for (const [method, probe] of Object.entries(methods) as [Method, Probe][]) {
        const capability = routeCapability(method, route)!;
        for (const role of ROLES) {
          const response = await send(a.keys[role], method, probe.own.path, probe.own.body);
          const label = `${role} ${method} ${probe.own.path} → ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`;
          if (roleAllows(role, capability)) {
            if (response.status === 401 || response.status === 403 || response.status >= 500)
              failures.push(`allowed: ${label}`);
          } else {
            const { code } = errorOf(probe.own.path, response);
            if (response.status !== 403 || code !== 'insufficient_role') failures.push(`denied: ${label}`);
            else if (!response.body.error.message.includes(`'${leastRoleFor(capability)}'`))
              failures.push(`wording: ${label}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it("answers another app's resources as not found (or the role's 403) and changes nothing there", async () => {
    const before = await snapshot(b);
    const failures: string[] = [];
    for (const [route, methods] of Object.entries(probes(a, b))) {
      for (const [method, probe] of Object.entries(methods) as [Method, Probe][]) {
        if (!probe.foreign) continue;
        const capability = routeCapability(method, route)!;
        for (const role of ROLES) {
          const response = await send(a.keys[role], method, probe.foreign.path, probe.foreign.body);
          const label = `${role} of A: ${method} ${probe.foreign.path} → ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`;
          const expected = roleAllows(role, capability) ? (probe.foreign.status ?? 404) : 403;
          if (response.status !== expected) failures.push(label);
          errorOf(probe.foreign.path, response);
          if (JSON.stringify(response.body).includes('secret-of-tenant-b')) failures.push(`leaks a secret: ${label}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshot(b)).toBe(before);
  }, 120_000);

  it('lets the operator key reach every app, and only the operator create and delete apps', async () => {
    const listed = await baton.request('GET', '/v1/projects/default/locations/global/apps');
    const names = listed.body.apps.map((app: { name: string }) => app.name.split('/').pop());
    expect(names).toEqual(expect.arrayContaining(['tenant-a', 'tenant-b', 'default']));
    const own = await send(a.keys.admin, 'GET', '/v1/projects/default/locations/global/apps');
    expect(own.body.apps.map((app: { name: string }) => app.name)).toEqual([`${a.resource}`]);
    expect((await baton.request('GET', `/v1/${b.resource}/secrets`)).status).toBe(200);
    const me = await baton.request('GET', '/v1/me');
    expect(me.body.key.role).toBe('operator');
    expect(ADMIN_KEY).toBeTruthy();
  });
});
