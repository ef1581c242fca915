/**
 * apiKeyConfig end to end: the key is stored as a secret, referenced by a toolset or a tool, sent
 * in a header or the query string — and never shows up in what Baton returns: not in the
 * transcript, not in the resources, not in the error results of calls that fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBaton } from '../../helpers/test-baton.ts';
import { localApiSchema, startLocalApi, type LocalApi } from './local-api.ts';
import {
  APP,
  ask,
  callProgram,
  createAgent,
  createSecret,
  createTool,
  createToolset,
  onlyServerResult,
  startToolBaton,
  type Turn,
} from './provider-fixtures.ts';

const API_KEY = 'sk-test-8d1f0c5e2b7a4d9e';

function apiKeyAuth(secret: string, requestLocation: 'HEADER' | 'QUERY_STRING') {
  return {
    apiKeyConfig: {
      keyName: requestLocation === 'HEADER' ? 'x-api-key' : 'key',
      apiKeySecretVersion: secret,
      requestLocation,
    },
  };
}

describe('API keys from secrets, in a header or the query string', () => {
  let api: LocalApi;
  let baton: TestBaton;
  /** Everything Baton answered in these tests, to search for the key. */
  const seen: string[] = [];
  const record = (turn: Turn): Turn => {
    seen.push(JSON.stringify(turn.reply), JSON.stringify(turn.messages));
    return turn;
  };

  beforeAll(async () => {
    api = await startLocalApi({ apiKey: API_KEY });
    const port = api.server.port;
    baton = await startToolBaton(
      callProgram({
        keyed: { tool: 'getKeyed', arguments: { q: 'stock' } },
        'blocked hop': { tool: 'getHop', arguments: { to: `http://127.0.0.1:${port}/x` } },
        'dead hop': { tool: 'getHop', arguments: { to: 'http://localhost:1/x' } },
      }),
      // The API is reached by name; a redirect to its bare address is refused.
      { egressAllow: ['localhost'] },
    );
    const secret = await createSecret(baton, 'crm-key', API_KEY);
    const serverUrl = `http://localhost:${port}`;
    const schema = localApiSchema(serverUrl, ['getKeyed', 'getHop']);
    await createToolset(baton, 'header-keyed', {
      displayName: 'Header',
      openApiToolset: { openApiSchema: schema, apiAuthentication: apiKeyAuth(secret, 'HEADER') },
    });
    await createToolset(baton, 'query-keyed', {
      displayName: 'Query',
      openApiToolset: { openApiSchema: schema, apiAuthentication: apiKeyAuth(secret, 'QUERY_STRING') },
    });
    await createTool(baton, 'keyed-tool', {
      openApiTool: {
        openApiSchema: localApiSchema(serverUrl, ['getKeyed']),
        apiAuthentication: apiKeyAuth(secret, 'HEADER'),
      },
    });
    await createAgent(baton, 'by-header', { toolsets: [{ toolset: 'header-keyed' }] });
    await createAgent(baton, 'by-query', { toolsets: [{ toolset: 'query-keyed' }] });
    await createAgent(baton, 'by-tool', { tools: ['keyed-tool'] });
  });
  afterAll(async () => {
    await baton?.close();
    await api?.close();
  });

  it('sends the key in the x-api-key header (toolset and single tool)', async () => {
    for (const agent of ['by-header', 'by-tool']) {
      const before = api.hitsOf('/keyed').length;
      const turn = record(await ask(baton, agent, 'keyed please'));
      const result = onlyServerResult(turn, 'getKeyed');
      expect(result.isError, result.text).toBe(false);
      expect(JSON.parse(result.text)).toEqual({ authorized: true, q: 'stock' });
      const hits = api.hitsOf('/keyed');
      expect(hits).toHaveLength(before + 1);
      expect(hits.at(-1)?.headers['x-api-key']).toBe(API_KEY);
      expect(hits.at(-1)?.url).toBe('/keyed?q=stock');
    }
  });

  it('sends the key as a query parameter next to the call’s own', async () => {
    const turn = record(await ask(baton, 'by-query', 'keyed please'));
    const result = onlyServerResult(turn, 'getKeyed');
    expect(result.isError, result.text).toBe(false);
    expect(JSON.parse(result.text)).toEqual({ authorized: true, q: 'stock' });
    const hit = api.hitsOf('/keyed').at(-1);
    expect(new URL(hit?.url ?? '', api.origin).searchParams.get('key')).toBe(API_KEY);
    expect(hit?.headers['x-api-key']).toBeUndefined();
  });

  it('drops the key from a redirect to another origin, so neither that hop nor its error has it', async () => {
    for (const agent of ['by-query', 'by-header']) {
      const turn = record(await ask(baton, agent, 'blocked hop'));
      const result = onlyServerResult(turn, 'getHop');
      expect(result.isError).toBe(true);
      expect(result.text).toContain('Refused to connect to 127.0.0.1');
      expect(result.text).toContain('egress.allow');
      expect(result.text).not.toContain(API_KEY);
      // localhost → 127.0.0.1 changes the origin: the redirect's copy of the query key was dropped.
      if (agent === 'by-query') expect(result.text).toMatch(/127\.0\.0\.1:\d+\/x failed/);
    }
    // The API did redirect with the key in the query; Baton did not take it along.
    const hop = api.hitsOf('/hop').find((hit) => hit.url.includes('key='));
    expect(hop).toBeDefined();
  });

  it('keeps the key out of the error of a redirect to a server that is down', async () => {
    const turn = record(await ask(baton, 'by-query', 'dead hop'));
    const result = onlyServerResult(turn, 'getHop');
    expect(result.isError).toBe(true);
    expect(result.text).toContain('localhost:1');
    expect(result.text).not.toContain(API_KEY);
  });

  it('never shows the key: not in replies, transcripts, the toolsets, the tool or the secret', async () => {
    const resources = await Promise.all(
      [
        `${APP}/toolsets/header-keyed`,
        `${APP}/toolsets/query-keyed`,
        `${APP}/tools/keyed-tool`,
        `${APP}/secrets/crm-key`,
        `${APP}/toolsets`,
      ].map((name) => baton.request('GET', `/v1/${name}`)),
    );
    for (const resource of resources) {
      expect(resource.status).toBe(200);
      seen.push(JSON.stringify(resource.body));
    }
    expect(seen.length).toBeGreaterThan(10);
    for (const text of seen) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(encodeURIComponent(API_KEY));
    }
  });
});
