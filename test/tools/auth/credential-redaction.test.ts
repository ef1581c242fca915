import { describe, expect, it } from 'vitest';
import { redactCredentials, redactSecrets, secretForms } from '../../../src/tools/auth/credential-redaction.ts';

describe('redactCredentials: what a call sent never comes back in its result', () => {
  it('removes header and query values, bearer tokens alone, and their URL-encoded forms', () => {
    const auth = {
      headers: { Authorization: 'Bearer tok-123456', 'x-api-key': 'k/e y+1' },
      query: { key: 'sk-test-9876' },
    };
    const text =
      'GET https://a.example/x?key=sk-test-9876&y=k%2Fe%20y%2B1 failed; token tok-123456; header k/e y+1; form k%2Fe+y%2B1';
    const redacted = redactCredentials(text, auth);
    for (const secret of ['sk-test-9876', 'tok-123456', 'k/e y+1', 'k%2Fe%20y%2B1', 'k%2Fe+y%2B1'])
      expect(redacted).not.toContain(secret);
    expect(redacted).toContain('[redacted]');
  });

  it('removes a secret with quotes and backslashes as JSON text quotes it', () => {
    const secret = 'pa"ss\\word/42';
    const auth = { headers: { 'X-Custom-Key': secret } };
    // What an API that echoes the header in a JSON error body sends back, and that body quoted in JSON.
    const body = JSON.stringify({ error: 'bad key', received: secret });
    const nested = JSON.stringify({ upstream: body });
    expect(body).toContain('pa\\"ss\\\\word');
    const php = body.replaceAll('/', '\\/'); // PHP's json_encode escapes slashes too
    for (const text of [body, nested, php]) {
      const redacted = redactCredentials(text, auth);
      expect(redacted).not.toContain('pa\\"ss');
      expect(redacted).not.toContain('ss\\\\word');
      expect(redacted).not.toContain('word/42');
      expect(redacted).toContain('[redacted]');
    }
    expect(JSON.parse(redactCredentials(body, auth))).toEqual({ error: 'bad key', received: '[redacted]' });
  });

  it('removes a secret with non-ASCII characters written as \\u escapes, in either case', () => {
    const secret = 'clé-secrète-☕';
    const python = '{"received": "cl\\u00e9-secr\\u00e8te-\\u2615"}';
    const java = '{"received": "cl\\u00E9-secr\\u00E8te-\\u2615"}';
    for (const text of [python, java]) expect(redactSecrets(text, [secret])).toBe('{"received": "[redacted]"}');
  });

  it('removes a secret percent-encoded, form-encoded with + for a space, and in lower-case hex', () => {
    const secret = 'a b/c+d=é';
    const forms = [
      encodeURIComponent(secret), // a%20b%2Fc%2Bd%3D%C3%A9
      'a+b%2Fc%2Bd%3D%C3%A9', // application/x-www-form-urlencoded
      'a%20b%2fc%2bd%3d%c3%a9', // lower-case hex, as some encoders write it
    ];
    for (const form of forms) {
      expect(redactSecrets(`GET /x?key=${form}&y=1 failed`, [secret])).toBe('GET /x?key=[redacted]&y=1 failed');
    }
  });

  it('lists each form once, the secret itself first', () => {
    const forms = secretForms('plain-value-123');
    expect(forms).toEqual(['plain-value-123']);
    expect(secretForms('a"b c')).toEqual(
      expect.arrayContaining(['a"b c', 'a\\"b c', 'a\\\\\\"b c', 'a%22b%20c', 'a%22b+c']),
    );
  });

  it('leaves text alone when no credential was sent', () => {
    expect(redactCredentials('all fine', {})).toBe('all fine');
  });
});
