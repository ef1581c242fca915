import { describe, expect, it } from 'vitest';
import { redactCredentials } from '../../../src/tools/auth/credential-redaction.ts';

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

  it('leaves text alone when no credential was sent', () => {
    expect(redactCredentials('all fine', {})).toBe('all fine');
  });
});
