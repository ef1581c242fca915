/**
 * oauthConfig (client credentials) end to end: a real authorization server (oauth2-mock-server)
 * issues tokens, a local API accepts only tokens it issued to our client, and Baton's toolset
 * gets one token, reuses it across turns, and turns a failing token endpoint into an error
 * result naming the endpoint, without ever showing the client secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBaton } from '../../helpers/test-baton.ts';
import { jwtPayload, startOAuthTestServer, type OAuthTestServer } from '../../tools/auth/oauth-test-server.ts';
import { localApiSchema, startLocalApi, type LocalApi } from './local-api.ts';
import {
  ask,
  callProgram,
  createAgent,
  createSecret,
  createToolset,
  LOOPBACK,
  onlyServerResult,
  startToolBaton,
} from './provider-fixtures.ts';

const CLIENT_SECRET = 'cs-9f8e7d6c5b4a3921';

describe('OAuth client credentials from a real authorization server', () => {
  let oauth: OAuthTestServer;
  let api: LocalApi;
  let baton: TestBaton;
  /** Tokens the API accepted, in order. */
  const accepted: string[] = [];

  const oauthToolset = (clientId: string, secret: string) => ({
    openApiSchema: localApiSchema(api.origin, ['getMe']),
    apiAuthentication: {
      oauthConfig: {
        oauthGrantType: 'CLIENT_CREDENTIAL',
        clientId,
        clientSecretVersion: secret,
        tokenEndpoint: oauth.tokenEndpoint,
        scopes: ['orders.read'],
      },
    },
  });

  beforeAll(async () => {
    oauth = await startOAuthTestServer();
    api = await startLocalApi({
      acceptsBearer: (token) => {
        let payload: Record<string, unknown>;
        try {
          payload = jwtPayload(token);
        } catch {
          return false;
        }
        const ok =
          payload.iss === oauth.issuerUrl &&
          typeof payload.client_id === 'string' &&
          payload.client_id.startsWith('baton-');
        if (ok) accepted.push(token);
        return ok;
      },
    });
    baton = await startToolBaton(
      callProgram({ 'who am i': { tool: 'getMe' }, twice: [{ tool: 'getMe' }, { tool: 'getMe' }] }),
      { egressAllow: [LOOPBACK] },
    );
    const secret = await createSecret(baton, 'oauth-client', CLIENT_SECRET);
    await createToolset(baton, 'orders', {
      displayName: 'Orders',
      openApiToolset: oauthToolset('baton-orders', secret),
    });
    await createToolset(baton, 'billing', {
      displayName: 'Billing',
      openApiToolset: oauthToolset('baton-billing', secret),
    });
    await createAgent(baton, 'orders-agent', { toolsets: [{ toolset: 'orders' }] });
    await createAgent(baton, 'billing-agent', { toolsets: [{ toolset: 'billing' }] });
    await createToolset(baton, 'cold', { displayName: 'Cold', openApiToolset: oauthToolset('baton-cold', secret) });
    await createAgent(baton, 'cold-agent', { toolsets: [{ toolset: 'cold' }] });
  });
  afterAll(async () => {
    await baton?.close();
    await api?.close();
    await oauth?.close();
  });

  it('gets one token and uses it for every call: two turns, one token request', async () => {
    oauth.reset();
    const first = onlyServerResult(await ask(baton, 'orders-agent', 'who am i?'), 'getMe');
    expect(first.isError, first.text).toBe(false);
    expect(JSON.parse(first.text)).toEqual({ user: 'token holder' });
    const second = onlyServerResult(await ask(baton, 'orders-agent', 'who am i, again?'), 'getMe');
    expect(second.isError, second.text).toBe(false);

    expect(oauth.seen).toHaveLength(1);
    expect(oauth.seen[0]).toMatchObject({
      contentType: 'application/x-www-form-urlencoded',
      basic: { clientId: 'baton-orders', clientSecret: CLIENT_SECRET },
      body: { grant_type: 'client_credentials', scope: 'orders.read' },
    });
    const sent = api.hitsOf('/me').map((hit) => hit.headers.authorization);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^Bearer ey/);
    expect(sent[1]).toBe(sent[0]);
    expect(jwtPayload(accepted[0] ?? '')).toMatchObject({ client_id: 'baton-orders', scope: 'orders.read' });
  });

  it('two concurrent calls of one step with no token yet share one token request', async () => {
    oauth.reset();
    const before = api.hitsOf('/me').length;
    const turn = await ask(baton, 'cold-agent', 'twice');
    expect(turn.calls.map((call) => [call.name, call.executor])).toEqual([
      ['getMe', 'server'],
      ['getMe', 'server'],
    ]);
    expect(turn.results).toHaveLength(2);
    expect(turn.results.every((result) => result.is_error === undefined)).toBe(true);
    const sent = api
      .hitsOf('/me')
      .slice(before)
      .map((hit) => hit.headers.authorization);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(oauth.seen).toHaveLength(1);
    expect(oauth.seen[0]?.basic?.clientId).toBe('baton-cold');
  });

  it('a failing token endpoint is an error result naming it; the API is not called and the turn completes', async () => {
    oauth.reset();
    oauth.failWith = { status: 500, body: { error: 'server_error', error_description: 'the signing key is gone' } };
    const before = api.hitsOf('/me').length;
    const turn = await ask(baton, 'billing-agent', 'who am i?');
    const result = onlyServerResult(turn, 'getMe');
    expect(result.isError).toBe(true);
    expect(oauth.seen).toHaveLength(1);
    expect(result.text).toContain(
      `The token endpoint ${oauth.tokenEndpoint} refused the client-credentials request for client 'baton-billing' with HTTP 500`,
    );
    expect(result.text).toContain('server_error — the signing key is gone');
    expect(result.text).not.toContain(CLIENT_SECRET);
    expect(api.hitsOf('/me')).toHaveLength(before);
    expect(turn.text).toBe(`Failed: ${result.text}`);
    expect(JSON.stringify(turn.messages)).not.toContain(CLIENT_SECRET);
  });

  it('a failure is not cached: once the endpoint recovers, the next call gets a token', async () => {
    oauth.reset();
    const result = onlyServerResult(await ask(baton, 'billing-agent', 'who am i?'), 'getMe');
    expect(result.isError, result.text).toBe(false);
    expect(oauth.seen).toHaveLength(1);
    expect(oauth.seen[0]?.basic?.clientId).toBe('baton-billing');
    expect(jwtPayload(accepted.at(-1) ?? '')).toMatchObject({ client_id: 'baton-billing' });
  });

  it('a token endpoint egress.allow does not cover is refused by name of the setting', async () => {
    const closed = await startToolBaton(callProgram({ 'who am i': { tool: 'getMe' } }));
    try {
      const secret = await createSecret(closed, 'oauth-client', CLIENT_SECRET);
      await createToolset(closed, 'orders', {
        displayName: 'Orders',
        openApiToolset: oauthToolset('baton-orders', secret),
      });
      await createAgent(closed, 'orders-agent', { toolsets: [{ toolset: 'orders' }] });
      oauth.reset();
      const result = onlyServerResult(await ask(closed, 'orders-agent', 'who am i?'), 'getMe');
      expect(result.isError).toBe(true);
      expect(result.text).toContain(
        `Could not get an OAuth access token from ${oauth.tokenEndpoint} (oauthConfig.tokenEndpoint)`,
      );
      expect(result.text).toContain('egress.allow');
      expect(oauth.seen).toHaveLength(0);
    } finally {
      await closed.close();
    }
  });
});
