import { describe, expect, it } from 'vitest';
import { isCredentialField, LogSecretScrubber } from '../../src/server/log-secret-scrubbing.ts';
import { knownLogSecrets } from '../../src/server/log-secrets.ts';
import { testConfig } from '../helpers/test-baton.ts';

describe('LogSecretScrubber', () => {
  const scrubber = new LogSecretScrubber(['custom-provider-key-123', 'short']);

  it.each([
    ['Authorization: Bearer abc.def-ghi_jkl', 'Authorization: Bearer [REDACTED]'],
    ['token Basic dXNlcjpwYXNzd29yZA==', 'token Basic [REDACTED]'],
    ['key bk_AbCdEf0123456789_-xyzXYZ012345 used', 'key [REDACTED] used'],
    ['prefix bk_abcd is public', 'prefix bk_abcd is public'],
    [
      'openai sk-proj-abcdefghijklmnop0123 anthropic sk-ant-api03-abcdefghijklmnop',
      'openai [REDACTED] anthropic [REDACTED]',
    ],
    ['google AIzaSyA1234567890abcdefghijklmnopqrstuv', 'google [REDACTED]'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N', 'jwt [REDACTED]'],
    ['postgres://baton:s3cr3t@db:5432/baton', 'postgres://[REDACTED]@db:5432/baton'],
    [
      'GET /x?limit=2&access_token=at-1&Client-Secret=cs&order=desc',
      'GET /x?limit=2&access_token=[REDACTED]&Client-Secret=[REDACTED]&order=desc',
    ],
    ['{"api_key":"k-1","password": "p-2","name":"n"}', '{"api_key":"[REDACTED]","password": "[REDACTED]","name":"n"}'],
    ['x-api-key=abc123 cookie: a=b', 'x-api-key=[REDACTED] cookie: [REDACTED]'],
    ['the custom-provider-key-123 leaked', 'the [REDACTED] leaked'],
    ['a short word stays', 'a short word stays'],
    ['nothing secret here: turn_abc call_def', 'nothing secret here: turn_abc call_def'],
  ])('text %s', (input, expected) => {
    expect(scrubber.text(input)).toBe(expected);
  });

  it('replaces fields named as credentials at any depth, keeps the rest', () => {
    expect(
      scrubber.value({
        headers: { Authorization: 'x', 'X-Api-Key': 'y', cookie: 'z', accept: 'json' },
        nested: [{ apiKey: 'k', clientSecret: { value: 's' }, refresh_token: 't', max_tokens: 5 }],
        key_count: 2,
        has_token: true,
        note: 'Bearer abcdefghijkl',
      }),
    ).toEqual({
      headers: { Authorization: '[REDACTED]', 'X-Api-Key': '[REDACTED]', cookie: '[REDACTED]', accept: 'json' },
      nested: [{ apiKey: '[REDACTED]', clientSecret: '[REDACTED]', refresh_token: '[REDACTED]', max_tokens: 5 }],
      key_count: 2,
      has_token: true,
      note: 'Bearer [REDACTED]',
    });
    for (const name of ['authorization', 'x-api-key', 'Cookie', 'set-cookie', 'apiKey', 'stripe_secret', 'db_password'])
      expect(isCredentialField(name), name).toBe(true);
    for (const name of ['turn_id', 'keyboard', 'tokens', 'author']) expect(isCredentialField(name), name).toBe(false);
  });

  it('serializes an error with its fields and causes, scrubbed, its request body left out', () => {
    const cause = new Error('connect to https://user:pw@api.example.com/v1?key=abc failed');
    const error = Object.assign(new Error('provider said: invalid key sk-abcdefghijklmnop1234', { cause }), {
      statusCode: 401,
      requestBodyValues: { messages: [{ role: 'user', content: 'my card is 4111…' }] },
      responseBody: `${'x'.repeat(5000)}`,
      apiKey: 'not-to-be-seen',
    });
    const serialized = scrubber.error(error);
    expect(serialized).toMatchObject({
      type: 'Error',
      message: 'provider said: invalid key [REDACTED]',
      statusCode: 401,
      requestBodyValues: '[omitted]',
      apiKey: '[REDACTED]',
      cause: { type: 'Error', message: 'connect to https://[REDACTED]@api.example.com/v1?key=[REDACTED] failed' },
    });
    expect(String(serialized.responseBody)).toMatch(/^x{4096}… \[904 more\]$/);
    expect(scrubber.error('thrown text with Bearer abcdefghijkl')).toMatchObject({
      message: 'thrown text with Bearer [REDACTED]',
    });
  });
});

describe('knownLogSecrets', () => {
  it("are the configuration's keys and the database password", () => {
    const config = testConfig({
      adminKey: 'bk_admin_key_0123456789abcdef',
      databaseUrl: 'postgres://baton:db-p%40ss@127.0.0.1:5432/baton',
      providers: {
        openai: { apiKey: 'sk-openai-key' },
        ollama: { baseURL: 'http://127.0.0.1:11434/v1' },
        custom: { vault: { baseURL: 'http://x', apiKey: 'vault-key' } },
      },
    });
    expect(knownLogSecrets(config, { BATON_SECRETS_KEY: 'ab'.repeat(32) }).sort()).toEqual(
      ['bk_admin_key_0123456789abcdef', 'ab'.repeat(32), 'sk-openai-key', 'vault-key', 'db-p@ss'].sort(),
    );
  });
});
