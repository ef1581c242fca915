import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { APP, created, expectGoogleError, read, violatedField } from '../../faces/ces/ces-test-client.ts';
import { TEST_CA_DER_BASE64, TEST_CA_PEM } from './test-ca-certificate.ts';

const TOOLSETS = `/v1/${APP}/toolsets`;
const CERTS = 'toolset.mcpToolset.tlsConfig.caCerts';
const OPENAPI =
  'openapi: 3.0.0\ninfo: {title: t, version: "1"}\nservers: [{url: "https://api.example.com"}]\npaths:\n ' +
  ' /ping:\n    get: {operationId: ping, responses: {"200": {description: ok}}}';

/** The seed's McpToolset with a TlsConfig: `caCerts[] {displayName, cert}`. */
function toolsetWithCerts(displayName: string, caCerts: unknown) {
  return { displayName, mcpToolset: { serverAddress: 'https://example.com/mcp/', tlsConfig: { caCerts } } };
}

/** `tlsConfig.caCerts` are parsed (X509Certificate) when a toolset or tool is written, not at its first call. */
describe('TLS certificates are checked when written', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton();
  });
  afterAll(async () => baton?.close());

  it('accepts a certificate as base64 DER (as CES sends it), as PEM, and as base64 of a PEM file', async () => {
    const caCerts = [
      { displayName: 'Corp CA (DER)', cert: TEST_CA_DER_BASE64 },
      { displayName: 'Corp CA (PEM)', cert: TEST_CA_PEM },
      { displayName: 'Corp CA (base64 PEM)', cert: Buffer.from(TEST_CA_PEM).toString('base64') },
    ];
    const toolset = await created(baton, `${TOOLSETS}?toolsetId=private-mcp`, toolsetWithCerts('Private', caCerts));
    expect(toolset.mcpToolset.tlsConfig).toEqual({ caCerts });
    const tool = await created(baton, `/v1/${APP}/tools?toolId=private-api`, {
      openApiTool: {
        openApiSchema: OPENAPI,
        tlsConfig: { caCerts: [{ displayName: 'DER', cert: TEST_CA_DER_BASE64 }] },
      },
    });
    expect(tool.openApiTool.tlsConfig.caCerts).toHaveLength(1);
  });

  it('refuses an empty list, an entry without a cert and a non-certificate, naming the entry', async () => {
    const good = { displayName: 'Corp CA', cert: TEST_CA_DER_BASE64 };
    const cases: { caCerts: unknown; field: string; says: RegExp }[] = [
      { caCerts: [], field: CERTS, says: /must list at least one certificate/ },
      { caCerts: [good, { displayName: 'No cert' }], field: `${CERTS}[1].cert`, says: /is required/ },
      { caCerts: [good, { displayName: 'Blank', cert: '  ' }], field: `${CERTS}[1].cert`, says: /is required/ },
      {
        caCerts: [good, { displayName: 'Prose', cert: 'see the attached file!' }],
        field: `${CERTS}[1].cert`,
        says: /neither PEM nor base64/,
      },
      {
        caCerts: [good, { displayName: 'Bytes', cert: Buffer.from('hello, not DER').toString('base64') }],
        field: `${CERTS}[1].cert`,
        says: /not a readable X\.509 certificate/,
      },
      {
        caCerts: [{ displayName: 'Key', cert: '-----BEGIN PRIVATE KEY-----\nMIGHAgEA\n-----END PRIVATE KEY-----' }],
        field: `${CERTS}[0].cert`,
        says: /a private key, not a certificate/,
      },
      {
        caCerts: [{ displayName: 'Cut', cert: TEST_CA_PEM.slice(0, 200) }],
        field: `${CERTS}[0].cert`,
        says: /no complete CERTIFICATE block/,
      },
    ];
    for (const { caCerts, field, says } of cases) {
      const error = expectGoogleError(
        await baton.request('POST', `${TOOLSETS}?toolsetId=bad-ca`, toolsetWithCerts('Bad CA', caCerts)),
        400,
        'INVALID_ARGUMENT',
      );
      expect(violatedField(error), error.message).toBe(field);
      expect(error.message).toMatch(says);
      expect(error.message).toMatch(/base64|certificate/);
      expectGoogleError(await read(baton, `${APP}/toolsets/bad-ca`), 404, 'NOT_FOUND');
    }
    const missingList = expectGoogleError(
      await baton.request('POST', TOOLSETS, {
        displayName: 'No list',
        openApiToolset: { openApiSchema: OPENAPI, tlsConfig: {} },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(missingList)).toBe('toolset.openApiToolset.tlsConfig.caCerts');
    const notCert = expectGoogleError(
      await baton.request('POST', `/v1/${APP}/tools`, {
        openApiTool: { openApiSchema: OPENAPI, tlsConfig: { caCerts: [{ cert: 'AAAA' }] } },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(notCert)).toBe('tool.openApiTool.tlsConfig.caCerts[0].cert');
    expect(notCert.message).toContain('Expected an X.509 CA certificate as base64-encoded DER');
  });

  it('checks an update too, leaving the stored toolset as it was', async () => {
    const toolset = await created(
      baton,
      `${TOOLSETS}?toolsetId=update-ca`,
      toolsetWithCerts('Update', [{ displayName: 'Corp CA', cert: TEST_CA_PEM }]),
    );
    const error = expectGoogleError(
      await baton.request('PATCH', `/v1/${toolset.name}?updateMask=mcpToolset.tlsConfig`, {
        mcpToolset: {
          tlsConfig: {
            caCerts: [
              { displayName: 'Corp CA', cert: TEST_CA_PEM },
              { displayName: 'x', cert: 'AAAA' },
            ],
          },
        },
        etag: toolset.etag,
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(error)).toBe(`${CERTS}[1].cert`);
    // In proto field names, the field is named as written.
    const snake = expectGoogleError(
      await baton.request('PATCH', `/v1/${toolset.name}?update_mask=mcp_toolset.tls_config`, {
        mcp_toolset: { tls_config: { ca_certs: [] } },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(snake)).toBe('toolset.mcp_toolset.tls_config.ca_certs');
    expect(snake.message).toContain('toolset.mcp_toolset.tls_config.ca_certs must list at least one certificate');
    expect((await read(baton, toolset.name)).body).toEqual(toolset);
  });

  it('create_toolset over MCP refuses a bad certificate the same way', async () => {
    const client = new Client({ name: 'tls-certificates', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baton.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ADMIN_KEY}` } },
      }),
    );
    try {
      const result = (await client.callTool({
        name: 'create_toolset',
        arguments: {
          parent: APP,
          toolsetId: 'mcp-bad-ca',
          toolset: toolsetWithCerts('MCP bad CA', [{ displayName: 'Corp CA', cert: 'not a certificate' }]),
        },
      })) as { isError?: boolean; content: { text: string }[] };
      expect(result.isError).toBe(true);
      const error = JSON.parse(result.content[0]!.text).error;
      expect(error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(violatedField(error)).toBe(`${CERTS}[0].cert`);
      expectGoogleError(await read(baton, `${APP}/toolsets/mcp-bad-ca`), 404, 'NOT_FOUND');
    } finally {
      await client.close();
    }
  });
});
