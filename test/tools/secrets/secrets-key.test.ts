import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretCipher } from '../../../src/tools/secrets/secret-cipher.ts';
import { loadSecretsKey, parseSecretsKey, secretsKeyPath } from '../../../src/tools/secrets/secrets-key.ts';

const FORMAT = 'BATON_SECRETS_KEY must be 32 bytes as 64 hex characters or base64';
const posix = process.platform !== 'win32';

describe('loadSecretsKey', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'baton-secrets-key-'));
    dirs.push(dir);
    return dir;
  }

  describe('from BATON_SECRETS_KEY', () => {
    const raw = randomBytes(32);
    const load = (value: string, allowKeyFile = false) =>
      loadSecretsKey({ env: { BATON_SECRETS_KEY: value }, dataDir: null, allowKeyFile });

    it('accepts 64 hex characters, either case', () => {
      expect(load(raw.toString('hex'))).toEqual({ key: raw, source: 'env' });
      expect(load(raw.toString('hex').toUpperCase()).key.equals(raw)).toBe(true);
    });

    it('accepts base64 and base64url, padded or not, with surrounding whitespace', () => {
      const b64 = raw.toString('base64');
      for (const value of [b64, b64.replace(/=+$/, ''), raw.toString('base64url'), `  ${b64}\n`]) {
        expect(load(value).key.equals(raw), value).toBe(true);
      }
    });

    it('wins over a key file', () => {
      const dir = tempDir();
      const result = loadSecretsKey({
        env: { BATON_SECRETS_KEY: raw.toString('base64') },
        dataDir: dir,
        allowKeyFile: true,
      });
      expect(result).toEqual({ key: raw, source: 'env' });
      expect(existsSync(secretsKeyPath(dir))).toBe(false);
    });

    it('refuses wrong lengths and formats with the expected format, never echoing the value', () => {
      const bad = [
        randomBytes(31).toString('hex'),
        randomBytes(33).toString('hex'),
        randomBytes(16).toString('base64'),
        randomBytes(48).toString('base64'),
        `${raw.toString('hex').slice(0, 63)}g`,
        'correct horse battery staple',
        `${raw.toString('base64').slice(0, -1)}==`,
      ];
      for (const value of bad) {
        let message = '';
        try {
          load(value, true);
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message, value).toContain(FORMAT);
        expect(message).toContain(`randomBytes(32).toString('base64')`);
        expect(message).not.toContain(value);
      }
    });

    it('treats an empty value as unset', () => {
      expect(() => load('')).toThrow(/BATON_SECRETS_KEY is not set/);
      expect(load('', true).source).toBe('generated');
    });
  });

  describe('key file', () => {
    it('creates <dataDir>/secrets.key with mode 0600 and reuses it on the next load', () => {
      const dir = tempDir();
      const first = loadSecretsKey({ env: {}, dataDir: dir, allowKeyFile: true });
      expect(first.source).toBe('generated');
      expect(first.key).toHaveLength(32);

      const path = secretsKeyPath(dir);
      expect(path).toBe(join(dir, 'secrets.key'));
      expect(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64').equals(first.key)).toBe(true);
      if (posix) expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual(['secrets.key']); // no temp file left behind

      const second = loadSecretsKey({ env: {}, dataDir: dir, allowKeyFile: true });
      expect(second.source).toBe('file');
      expect(second.key.equals(first.key)).toBe(true);

      // Secrets written after the first load are readable after the second.
      const encoded = new SecretCipher(first.key).encrypt('value', 'a/b');
      expect(new SecretCipher(second.key).decrypt(encoded, 'a/b')).toBe('value');
    });

    it('creates a missing data directory', () => {
      const dir = join(tempDir(), 'nested', 'data');
      const result = loadSecretsKey({ env: {}, dataDir: dir, allowKeyFile: true });
      expect(result.source).toBe('generated');
      expect(existsSync(secretsKeyPath(dir))).toBe(true);
    });

    it('reads a key file written by hand', () => {
      const dir = tempDir();
      const raw = randomBytes(32);
      writeFileSync(secretsKeyPath(dir), `${raw.toString('base64')}\n`);
      expect(loadSecretsKey({ env: {}, dataDir: dir, allowKeyFile: true })).toEqual({ key: raw, source: 'file' });
    });

    it('refuses a corrupt key file instead of replacing it', () => {
      const dir = tempDir();
      const path = secretsKeyPath(dir);
      writeFileSync(path, 'not a key\n');
      expect(() => loadSecretsKey({ env: {}, dataDir: dir, allowKeyFile: true })).toThrow(
        /does not hold a base64 32-byte key/,
      );
      expect(readFileSync(path, 'utf8')).toBe('not a key\n');
    });
  });

  describe('without a key', () => {
    it('throws when key files are not allowed (Postgres)', () => {
      const dir = tempDir();
      for (const dataDir of [dir, null]) {
        expect(() => loadSecretsKey({ env: {}, dataDir, allowKeyFile: false })).toThrow(
          /set BATON_SECRETS_KEY|BATON_SECRETS_KEY is not set/,
        );
      }
      expect(readdirSync(dir)).toEqual([]);
    });

    it('generates an ephemeral key when there is no data directory', () => {
      const a = loadSecretsKey({ env: {}, dataDir: null, allowKeyFile: true });
      const b = loadSecretsKey({ env: {}, dataDir: null, allowKeyFile: true });
      expect(a.source).toBe('generated');
      expect(a.key).toHaveLength(32);
      expect(a.key.equals(b.key)).toBe(false);
    });
  });
});

describe('parseSecretsKey', () => {
  it('prefers hex for 64 hex characters (which are also valid base64 of 48 bytes)', () => {
    const hex = 'ab'.repeat(32);
    expect(parseSecretsKey(hex)?.equals(Buffer.from(hex, 'hex'))).toBe(true);
  });

  it('rejects non-canonical base64 that would decode to the same bytes', () => {
    const raw = Buffer.alloc(32, 0);
    const canonical = raw.toString('base64url'); // 43 chars, last char carries 2 unused bits
    expect(parseSecretsKey(canonical)?.equals(raw)).toBe(true);
    expect(parseSecretsKey(`${canonical.slice(0, -1)}B`)).toBeNull();
  });
});
