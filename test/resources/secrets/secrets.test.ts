import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSecretValue } from '../../../src/resources/secrets/secret-values.ts';
import { SecretCipher } from '../../../src/tools/secrets/secret-cipher.ts';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { APP, created, expectGoogleError, read, violatedField } from '../../faces/ces/ces-test-client.ts';

const SECRETS = `/v1/${APP}/secrets`;
const VALUE = 'sk-live-THE-VERY-SECRET-VALUE-1234567890';
const OPENAPI =
  'openapi: 3.0.0\ninfo: {title: t, version: "1"}\nservers: [{url: "https://api.example.com"}]\npaths:\n ' +
  ' /ping:\n    get: {operationId: ping, responses: {"200": {description: ok}}}';

// The server's key, pinned so the test can decrypt with the same cipher the tool executors will get.
const SECRETS_KEY = 'a1'.repeat(32);
const keys = { secrets: new SecretCipher(Buffer.from(SECRETS_KEY, 'hex')) };

function apiKeyAuth(reference: string) {
  return { apiKeyConfig: { keyName: 'x-api-key', apiKeySecretVersion: reference, requestLocation: 'HEADER' } };
}

describe('CES secrets: an encrypted store that never returns values', () => {
  let baton: TestBaton;
  const everyBody: string[] = [];
  const request = async (method: string, path: string, body?: unknown) => {
    const response = await baton.request(method, path, body);
    everyBody.push(JSON.stringify(response.body));
    return response;
  };

  const previousKey = process.env.BATON_SECRETS_KEY;
  beforeAll(async () => {
    process.env.BATON_SECRETS_KEY = SECRETS_KEY;
    baton = await startTestBaton();
  });
  afterAll(async () => {
    if (previousKey === undefined) delete process.env.BATON_SECRETS_KEY;
    else process.env.BATON_SECRETS_KEY = previousKey;
    await baton?.close();
  });
  const secretValue = (name: string) => readSecretValue(baton.baton.store, keys, baton.baton.defaultAppId, name);

  it('create, get, list and patch answer without the value; only ciphertext is stored', async () => {
    const create = await request('POST', `${SECRETS}?secretId=crm-key`, { displayName: 'CRM key', value: VALUE });
    expect(create.status).toBe(200);
    expect(create.body).toEqual({
      name: `${APP}/secrets/crm-key`,
      displayName: 'CRM key',
      createTime: expect.any(String),
      updateTime: expect.any(String),
      etag: expect.any(String),
    });
    const generated = await request('POST', SECRETS, { value: 'another' });
    expect(generated.body.name).toMatch(new RegExp(`^${APP}/secrets/[a-z][a-z0-9]{11}$`));
    expect((await request('GET', `/v1/${create.body.name}`)).body).toEqual(create.body);
    const list = await request('GET', SECRETS);
    expect(list.body.secrets.map((secret: any) => secret.name)).toContain(create.body.name);

    const row = await baton.baton.store.secrets.get(baton.baton.defaultAppId, 'crm-key');
    expect(row!.ciphertext).toMatch(/^v1\./);
    expect(row!.ciphertext).not.toContain(VALUE);
    expect(JSON.stringify(row)).not.toContain(VALUE);
    expect(await secretValue(create.body.name)).toBe(VALUE);

    const renamed = await request('PATCH', `/v1/${create.body.name}`, { displayName: 'CRM key (prod)' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.displayName).toBe('CRM key (prod)');
    expect(await secretValue(create.body.name)).toBe(VALUE);

    const rotated = await request('PATCH', `/v1/${create.body.name}?updateMask=value`, {
      value: `${VALUE}-rotated`,
      etag: renamed.body.etag,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.displayName).toBe('CRM key (prod)');
    expect(await secretValue(`${create.body.name}/versions/latest`)).toBe(`${VALUE}-rotated`);
    for (const body of everyBody) expect(body).not.toContain(VALUE);
  });

  it('a raw key where a secret name belongs is INVALID_ARGUMENT, never stored and never echoed', async () => {
    const response = await request('POST', `/v1/${APP}/toolsets?toolsetId=pasted`, {
      displayName: 'Pasted',
      openApiToolset: { openApiSchema: OPENAPI, apiAuthentication: apiKeyAuth(VALUE) },
    });
    const error = expectGoogleError(response, 400, 'INVALID_ARGUMENT');
    expect(violatedField(error)).toBe('toolset.openApiToolset.apiAuthentication.apiKeyConfig.apiKeySecretVersion');
    expect(error.message).toContain(`POST /v1/${APP}/secrets?secretId=`);
    expect(JSON.stringify(response.body)).not.toContain(VALUE);
    expectGoogleError(await read(baton, `${APP}/toolsets/pasted`), 404, 'NOT_FOUND');

    const missing = expectGoogleError(
      await request('POST', `/v1/${APP}/tools`, {
        openApiTool: {
          openApiSchema: OPENAPI,
          apiAuthentication: {
            oauthConfig: {
              clientId: 'c',
              clientSecretVersion: `${APP}/secrets/nope`,
              tokenEndpoint: 'https://auth.example/token',
            },
          },
        },
      }),
      400,
      // Right as it stands once the secret exists: a precondition, not a bad argument.
      'FAILED_PRECONDITION',
    );
    expect(violatedField(missing)).toBe('tool.openApiTool.apiAuthentication.oauthConfig.clientSecretVersion');
    expect(missing.message).toContain('the app has no secret');
    expect(missing.message).toContain(`POST /v1/${APP}/secrets?secretId=nope`);
    const bearer = expectGoogleError(
      await request('POST', `/v1/${APP}/toolsets`, {
        mcpToolset: {
          serverAddress: 'https://m.example/mcp/',
          apiAuthentication: { bearerTokenConfig: { token: VALUE } },
        },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(bearer.message).toContain('$context.variables.NAME');
    for (const body of everyBody) expect(body).not.toContain(VALUE);
  });

  it('deleting a secret a toolset uses is FAILED_PRECONDITION naming it; unused secrets delete', async () => {
    const secret = await created(baton, `${SECRETS}?secretId=in-use`, { value: 'k' });
    const toolset = await created(baton, `/v1/${APP}/toolsets?toolsetId=authed`, {
      displayName: 'Authed',
      openApiToolset: { openApiSchema: OPENAPI, apiAuthentication: apiKeyAuth(`${secret.name}/versions/latest`) },
    });
    expect(toolset.openApiToolset.apiAuthentication.apiKeyConfig.apiKeySecretVersion).toBe(
      `${secret.name}/versions/latest`,
    );

    const error = expectGoogleError(await baton.request('DELETE', `/v1/${secret.name}`), 400, 'FAILED_PRECONDITION');
    expect(error.message).toContain(toolset.name);
    expect((await read(baton, secret.name)).body).toEqual(secret);

    expect((await baton.request('DELETE', `/v1/${toolset.name}`)).status).toBe(200);
    expect((await baton.request('DELETE', `/v1/${secret.name}`)).status).toBe(200);
    expectGoogleError(await read(baton, secret.name), 404, 'NOT_FOUND');
  });

  it('refuses a missing or oversized value, a stale etag, a duplicate id and force', async () => {
    const secret = await created(baton, `${SECRETS}?secretId=strict`, { value: 'v1' });
    expect(
      violatedField(
        expectGoogleError(
          await baton.request('POST', `${SECRETS}?secretId=empty`, { displayName: 'no value' }),
          400,
          'INVALID_ARGUMENT',
        ),
      ),
    ).toBe('secret.value');
    expect(
      violatedField(
        expectGoogleError(
          await baton.request('POST', `${SECRETS}?secretId=big`, { value: 'x'.repeat(64 * 1024 + 1) }),
          400,
          'INVALID_ARGUMENT',
        ),
      ),
    ).toBe('secret.value');
    expectGoogleError(
      await baton.request('POST', `${SECRETS}?secretId=strict`, { value: 'again' }),
      409,
      'ALREADY_EXISTS',
    );
    await baton.request('PATCH', `/v1/${secret.name}`, { value: 'v2' });
    const current = (await read(baton, secret.name)).body;
    expectGoogleError(
      await baton.request('PATCH', `/v1/${secret.name}`, { value: 'v3', etag: secret.etag }),
      409,
      'ABORTED',
    );
    expectGoogleError(await baton.request('DELETE', `/v1/${secret.name}?force=true`), 400, 'INVALID_ARGUMENT');
    expect((await read(baton, secret.name)).body).toEqual(current);
    expect(await secretValue(secret.name)).toBe('v2');
    for (const id of ['empty', 'big']) expectGoogleError(await read(baton, `${APP}/secrets/${id}`), 404, 'NOT_FOUND');
  });
});
