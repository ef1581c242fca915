import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type TestBaton } from '../../helpers/test-baton.ts';
import { APP, created, expectGoogleError, read, violatedField } from '../../faces/ces/ces-test-client.ts';
import { localApiSchema, startLocalApi, type LocalApi } from '../tools/local-api.ts';
import { ask, callProgram, createAgent, onlyServerResult, startToolBaton } from '../tools/provider-fixtures.ts';

const API_KEY = 'sk-test-secret-manager-5b1e';
const SECRETS = `/v1/${APP}/secrets`;
const KEY_FIELD = 'toolset.mcpToolset.apiAuthentication.apiKeyConfig.apiKeySecretVersion';

/** The seed's McpToolset with an ApiKeyConfig, as a CES export has it: the key in Secret Manager. */
function exportedToolset(displayName: string, apiKeySecretVersion: string) {
  return {
    displayName,
    mcpToolset: {
      serverAddress: 'https://example.com/mcp/',
      apiAuthentication: { apiKeyConfig: { keyName: 'X-Api-Key', apiKeySecretVersion, requestLocation: 'HEADER' } },
    },
  };
}

/**
 * Secret Manager names (`projects/{p}/secrets/{id}/versions/{v}`) wherever a secret version is
 * referenced, read as the app's own secret `{id}`, so an exported CES toolset imports unchanged.
 */
describe('Secret Manager names for secret versions', () => {
  let api: LocalApi;
  let baton: TestBaton;
  let client: Client;

  beforeAll(async () => {
    api = await startLocalApi({ apiKey: API_KEY });
    baton = await startToolBaton(callProgram({ keyed: { tool: 'getKeyed', arguments: { q: 'stock' } } }), {
      egressAllow: ['localhost'],
    });
    await created(baton, `${SECRETS}?secretId=crm-key`, { value: API_KEY });
    client = new Client({ name: 'secret-manager-names', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baton.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ADMIN_KEY}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await baton?.close();
    await api?.close();
  });

  it('imports an exported toolset unchanged, in every Secret Manager form, and keeps the app’s own form', async () => {
    const references = [
      'projects/my-gcp-project/secrets/crm-key/versions/3',
      'projects/my-gcp-project/secrets/crm-key/versions/latest',
      'projects/123456789/locations/us-central1/secrets/crm-key/versions/1',
      `${APP}/secrets/crm-key`,
      `${APP}/secrets/crm-key/versions/latest`,
    ];
    for (const [index, reference] of references.entries()) {
      const toolset = await created(
        baton,
        `/v1/${APP}/toolsets?toolsetId=imported-${index}`,
        exportedToolset(`Imported ${index}`, reference),
      );
      // Stored and answered exactly as written, so exporting it again gives the same document.
      expect(toolset.mcpToolset.apiAuthentication.apiKeyConfig.apiKeySecretVersion).toBe(reference);
    }

    const oauth = await created(baton, `/v1/${APP}/tools?toolId=oauth-tool`, {
      openApiTool: {
        openApiSchema: localApiSchema('https://api.example.com', ['getKeyed']),
        apiAuthentication: {
          oauthConfig: {
            oauthGrantType: 'CLIENT_CREDENTIAL',
            clientId: 'baton',
            clientSecretVersion: 'projects/my-gcp-project/secrets/crm-key/versions/2',
            tokenEndpoint: 'https://auth.example.com/token',
          },
        },
      },
    });
    expect(oauth.openApiTool.apiAuthentication.oauthConfig.clientSecretVersion).toBe(
      'projects/my-gcp-project/secrets/crm-key/versions/2',
    );

    // Deleting the secret is refused while a Secret Manager name refers to it.
    const inUse = expectGoogleError(
      await baton.request('DELETE', `/v1/${APP}/secrets/crm-key`),
      400,
      'FAILED_PRECONDITION',
    );
    expect(inUse.message).toContain(`${APP}/toolsets/imported-0`);
    expect(inUse.message).toContain(`${APP}/tools/oauth-tool`);
  });

  it('sends the app secret’s value when a call runs', async () => {
    await created(baton, `/v1/${APP}/toolsets?toolsetId=keyed-api`, {
      displayName: 'Keyed API',
      openApiToolset: {
        openApiSchema: localApiSchema(`http://localhost:${api.server.port}`, ['getKeyed']),
        apiAuthentication: {
          apiKeyConfig: {
            keyName: 'x-api-key',
            apiKeySecretVersion: 'projects/my-gcp-project/secrets/crm-key/versions/1',
            requestLocation: 'HEADER',
          },
        },
      },
    });
    await createAgent(baton, 'keyed-agent', { toolsets: [{ toolset: 'keyed-api' }] });
    const result = onlyServerResult(await ask(baton, 'keyed-agent', 'keyed please'), 'getKeyed');
    expect(result.isError, result.text).toBe(false);
    expect(JSON.parse(result.text)).toEqual({ authorized: true, q: 'stock' });
    expect(api.hitsOf('/keyed').at(-1)?.headers['x-api-key']).toBe(API_KEY);
  });

  it('a missing secret is FAILED_PRECONDITION naming the field, the secret and how to create it; nothing is stored', async () => {
    const body = exportedToolset('Billing', 'projects/my-gcp-project/secrets/billing-key/versions/7');
    const path = `/v1/${APP}/toolsets?toolsetId=billing`;
    const error = expectGoogleError(await baton.request('POST', path, body), 400, 'FAILED_PRECONDITION');
    expect(violatedField(error)).toBe(KEY_FIELD);
    expect(error.message).toContain(KEY_FIELD);
    expect(error.message).toContain("the app has no secret 'billing-key'");
    expect(error.message).toContain(`POST /v1/${APP}/secrets?secretId=billing-key`);
    expect(error.details[0]).toMatchObject({
      reason: 'REFERENCED_SECRET_MISSING',
      metadata: { secret: `${APP}/secrets/billing-key` },
    });
    expectGoogleError(await read(baton, `${APP}/toolsets/billing`), 404, 'NOT_FOUND');

    // Once the secret exists, the very same request succeeds.
    await created(baton, `${SECRETS}?secretId=billing-key`, { value: 'sk-billing' });
    expect((await baton.request('POST', path, body)).status).toBe(200);
  });

  it('still refuses what is no secret name: a raw key, another app’s secret, a secret as a bearer token', async () => {
    for (const reference of [
      API_KEY,
      'projects/default/locations/global/apps/other/secrets/crm-key',
      'projects/my-gcp-project/secrets/crm-key',
    ]) {
      const error = expectGoogleError(
        await baton.request('POST', `/v1/${APP}/toolsets`, exportedToolset('Raw', reference)),
        400,
        'INVALID_ARGUMENT',
      );
      expect(violatedField(error)).toBe(KEY_FIELD);
      expect(error.message).toContain('projects/<project>/secrets/<id>/versions/<version>');
      expect(JSON.stringify(error)).not.toContain(API_KEY);
    }
    // CES reads bearer tokens from the session; a secret's name there gets the way to do it.
    const bearer = expectGoogleError(
      await baton.request('POST', `/v1/${APP}/toolsets`, {
        displayName: 'Bearer',
        mcpToolset: {
          serverAddress: 'https://example.com/mcp/',
          apiAuthentication: {
            bearerTokenConfig: { token: 'projects/my-gcp-project/secrets/crm-key/versions/1' },
          },
        },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(bearer)).toBe('toolset.mcpToolset.apiAuthentication.bearerTokenConfig.token');
    expect(bearer.message).toContain('$context.variables.NAME');
    expect(bearer.message).toContain('keyName "Authorization"');
    expect(
      (await baton.request('GET', `/v1/${APP}/toolsets`)).body.toolsets.map((one: any) => one.displayName),
    ).not.toContain('Raw');
  });

  it('create_toolset over MCP takes the same names, and says the same when the secret is missing', async () => {
    const made = (await client.callTool({
      name: 'create_toolset',
      arguments: {
        parent: APP,
        toolsetId: 'mcp-imported',
        toolset: exportedToolset('MCP imported', 'projects/my-gcp-project/secrets/crm-key/versions/latest'),
      },
    })) as { isError?: boolean; structuredContent?: any; content: { text: string }[] };
    expect(made.isError, made.content[0]?.text).toBeFalsy();
    expect(made.structuredContent.name).toBe(`${APP}/toolsets/mcp-imported`);

    const missing = (await client.callTool({
      name: 'create_toolset',
      arguments: {
        parent: APP,
        toolsetId: 'mcp-missing',
        toolset: exportedToolset('MCP missing', 'projects/my-gcp-project/secrets/nope/versions/1'),
      },
    })) as { isError?: boolean; content: { text: string }[] };
    expect(missing.isError).toBe(true);
    const error = JSON.parse(missing.content[0]!.text).error;
    expect(error).toMatchObject({ code: 400, status: 'FAILED_PRECONDITION' });
    expect(error.message).toContain(`POST /v1/${APP}/secrets?secretId=nope`);
    expectGoogleError(await read(baton, `${APP}/toolsets/mcp-missing`), 404, 'NOT_FOUND');
  });
});
