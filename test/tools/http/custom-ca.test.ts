import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPemCertificates, trustStoreWith } from '../../../src/tools/http/custom-ca.ts';
import { EgressError } from '../../../src/tools/http/egress-error.ts';
import { GuardedAgentPool } from '../../../src/tools/http/guarded-agent.ts';
import { guardedFetch } from '../../../src/tools/http/guarded-fetch.ts';
import { safeFetch } from '../../../src/tools/http/safe-fetch.ts';
import { startServer, type LocalServer } from './local-servers.ts';

// node:crypto cannot issue X.509 certificates; openssl can, when the machine has it.
const OPENSSL = '/usr/bin/openssl';
const hasOpenssl = existsSync(OPENSSL);
if (!hasOpenssl) console.warn(`custom CA tests skipped: ${OPENSSL} not found, cannot create a test certificate`);

const LOOPBACK = { allow: ['127.0.0.0/8'] };
const agents = new GuardedAgentPool();
let dir = '';
let certPem = '';
let certDerBase64 = '';
let server: LocalServer | undefined;

beforeAll(async () => {
  if (!hasOpenssl) return;
  dir = mkdtempSync(join(tmpdir(), 'baton-ca-'));
  execFileSync(
    OPENSSL,
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=baton-test-ca',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  certPem = readFileSync(join(dir, 'cert.pem'), 'utf8');
  certDerBase64 = new X509Certificate(certPem).raw.toString('base64');
  server = await startServer((_req, res) => res.end('secure hello'), {
    tls: { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: certPem },
  });
});

afterAll(async () => {
  await agents.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const opts = (ca?: string[]) => ({ policy: LOOPBACK, agents, timeoutMs: 5_000, ...(ca ? { ca } : {}) });

describe.skipIf(!hasOpenssl)('custom CA certificates', () => {
  it('trusts a PEM CA for the client that has it', async () => {
    const response = await safeFetch(`${server!.origin}/`, {}, opts([certPem]));
    expect(response.body.toString()).toBe('secure hello');
  });

  it('accepts the CA as base64 DER (CES tlsConfig.caCerts[].cert)', async () => {
    const response = await safeFetch(`${server!.origin}/`, {}, opts([certDerBase64]));
    expect(response.body.toString()).toBe('secure hello');
    const streamed = await guardedFetch(LOOPBACK, { agents, ca: [certDerBase64] })(`${server!.origin}/`);
    expect(await streamed.text()).toBe('secure hello');
  });

  it('does not trust it for clients without it, nor for the process', async () => {
    await safeFetch(`${server!.origin}/`, {}, opts([certPem])); // a trusting agent exists now
    const error = await safeFetch(`${server!.origin}/`, {}, opts()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EgressError);
    expect((error as EgressError).code).toBe('tls_error');
    expect((error as EgressError).message).toContain('tlsConfig.caCerts');

    const processWide = await new Promise<unknown>((resolve) => {
      https.get(`${server!.origin}/`, (res) => resolve(res.statusCode)).on('error', (e) => resolve(e));
    });
    expect(processWide).toBeInstanceOf(Error);
    await expect(fetch(`${server!.origin}/`)).rejects.toThrow();
  });
});

describe('CA certificate parsing', () => {
  it('names the bad entry', () => {
    expect(() => toPemCertificates(['not base64 at all!'])).toThrow(/tlsConfig\.caCerts\[0\] cannot be used/);
    expect(() => toPemCertificates(['AAAA'])).toThrow(/not a readable X\.509 certificate/);
    expect(() => toPemCertificates(['-----BEGIN CERTIFICATE-----\nAAAA'])).toThrow(/no complete CERTIFICATE block/);
  });

  it('keeps the default roots next to the custom CA', () => {
    const store = trustStoreWith(['-----BEGIN CERTIFICATE-----x-----END CERTIFICATE-----']);
    expect(store.length).toBeGreaterThan(tls.rootCertificates.length);
    expect(store).toContain(tls.rootCertificates[0]);
  });
});
