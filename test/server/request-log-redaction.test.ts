import http from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCredentialParameter, redactRequestUrl } from '../../src/server/request-log-redaction.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/** Every line the server's logger wrote, parsed. */
const lines: Array<Record<string, any>> = [];
const stream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
    done();
  },
});

let server: TestBaton;

beforeAll(async () => {
  server = await startTestBaton({}, { logger: { level: 'info', stream } });
});

afterAll(async () => {
  await server.close();
});

/** The URLs of the server's "incoming request" lines, and the whole log as text. */
function logged(): { urls: string[]; text: string } {
  return {
    urls: lines.filter((line) => line.req !== undefined).map((line) => String(line.req.url)),
    text: lines.map((line) => JSON.stringify(line)).join('\n'),
  };
}

/** A request with its target exactly as written, as a proxy or a hand-made client sends it. */
async function rawRequest(target: string): Promise<number> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method: 'GET', path: target }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('the request log of a real server', () => {
  it('writes credential query values as [REDACTED] and the rest of the URL as it came', async () => {
    const response = await server.request(
      'GET',
      '/v1/threads?limit=2&api_key=sk-live-abc123&access_token=at-987&Client-Secret=cs-555&order=desc',
    );
    expect(response.status).toBeLessThan(500);
    const { urls, text } = logged();
    expect(urls).toContain(
      '/v1/threads?limit=2&api_key=[REDACTED]&access_token=[REDACTED]&Client-Secret=[REDACTED]&order=desc',
    );
    for (const secret of ['sk-live-abc123', 'at-987', 'cs-555']) expect(text).not.toContain(secret);
  });

  it('redacts the user-info of an absolute-form request target', async () => {
    await rawRequest('http://admin:hunter2-pass@127.0.0.1/healthz?token=tk-42&x=1');
    const { urls, text } = logged();
    expect(urls).toContain('http://[REDACTED]@127.0.0.1/healthz?token=[REDACTED]&x=1');
    expect(text).not.toContain('hunter2-pass');
    expect(text).not.toContain('tk-42');
  });

  it('logs a URL without credentials unchanged', async () => {
    await server.request('GET', '/healthz?verbose=1&name=a%20b');
    expect(logged().urls).toContain('/healthz?verbose=1&name=a%20b');
  });
});

describe('redactRequestUrl', () => {
  it('matches names in any case, with - for _, encoded, and by suffix', () => {
    expect(redactRequestUrl('/x?KEY=1&x-api-key=2&stripe_secret=3&refresh%5Ftoken=4&keyboard=5')).toBe(
      '/x?KEY=[REDACTED]&x-api-key=[REDACTED]&stripe_secret=[REDACTED]&refresh%5Ftoken=[REDACTED]&keyboard=5',
    );
    expect(isCredentialParameter('password')).toBe(true);
    expect(isCredentialParameter('limit')).toBe(false);
  });

  it('keeps names without a value, empty parts and malformed escapes as they are', () => {
    expect(redactRequestUrl('/x?token&&%E0%A4%A=1&sig=')).toBe('/x?token&&%E0%A4%A=1&sig=[REDACTED]');
    expect(redactRequestUrl('/plain/path')).toBe('/plain/path');
  });
});
