import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * Where the key that encrypts stored tool secrets comes from, in order:
 *
 * 1. `BATON_SECRETS_KEY` (64 hex characters, or base64/base64url of exactly 32 bytes). Empty counts
 *    as unset, like the other BATON_* variables.
 * 2. With `allowKeyFile` and a data directory: `<dataDir>/secrets.key` (base64), created on first
 *    use with mode 0600. An existing but unreadable file is an error, never silently replaced:
 *    a new key would make every stored secret undecryptable.
 * 3. With `allowKeyFile` and no data directory (`:memory:` databases, tests): a random key that
 *    lives as long as the process.
 *
 * Without `allowKeyFile` (Postgres: several processes must share one key) the variable is required.
 * No error message ever contains the key.
 */

export const SECRETS_KEY_ENV = 'BATON_SECRETS_KEY';
export const SECRETS_KEY_FILE = 'secrets.key';

const KEY_BYTES = 32;
const GENERATE_HINT = `node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`;
const FORMAT_MESSAGE = `${SECRETS_KEY_ENV} must be 32 bytes as 64 hex characters or base64, e.g. generate one with: ${GENERATE_HINT}`;

export type SecretsKeySource = 'env' | 'file' | 'generated';

export interface LoadSecretsKeyOptions {
  env: NodeJS.ProcessEnv;
  /** The directory for `secrets.key`; null when there is none (in-memory database). */
  dataDir: string | null;
  /** False when several processes share the store (Postgres) and must therefore share one key. */
  allowKeyFile: boolean;
}

export interface LoadedSecretsKey {
  key: Buffer;
  source: SecretsKeySource;
}

/** The key file's path for a data directory. */
export function secretsKeyPath(dataDir: string): string {
  return join(dataDir, SECRETS_KEY_FILE);
}

export function loadSecretsKey(options: LoadSecretsKeyOptions): LoadedSecretsKey {
  const fromEnv = options.env[SECRETS_KEY_ENV]?.trim();
  if (fromEnv) {
    const key = parseSecretsKey(fromEnv);
    if (key === null) throw new Error(`${FORMAT_MESSAGE} (got a value of ${fromEnv.length} characters)`);
    return { key, source: 'env' };
  }
  if (!options.allowKeyFile) {
    throw new Error(
      `${SECRETS_KEY_ENV} is not set. It is required with a Postgres store, where every Baton process must use the same key ` +
        `to read stored secrets: set it to 32 bytes as 64 hex characters or base64, e.g. generate one with: ${GENERATE_HINT}`,
    );
  }
  if (options.dataDir === null) return { key: randomBytes(KEY_BYTES), source: 'generated' };
  return loadOrCreateKeyFile(options.dataDir);
}

/**
 * 64 hex characters, or canonical base64 / base64url (padding optional) of exactly 32 bytes;
 * null for anything else. Hex is tried first: 64 hex characters are also valid base64 (of 48 bytes).
 */
export function parseSecretsKey(value: string): Buffer | null {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return null;
  const unpadded = text.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  const key = Buffer.from(unpadded, 'base64url');
  // Node's decoder is lenient; the round trip rejects stray bits and wrong lengths alike.
  if (key.length !== KEY_BYTES || key.toString('base64url') !== unpadded) return null;
  // Padding, when present, must be the right amount (44 characters in all for 32 bytes).
  if (text.includes('=') && text.length !== 44) return null;
  return key;
}

function loadOrCreateKeyFile(dataDir: string): LoadedSecretsKey {
  const path = secretsKeyPath(dataDir);
  const existing = readKeyFile(path);
  if (existing !== null) return { key: existing, source: 'file' };

  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  const temp = join(dataDir, `.${SECRETS_KEY_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, `${key.toString('base64')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (!publishWithoutClobbering(temp, path)) {
      // Another process created the key file first: use its key, or our secrets and its would diverge.
      const theirs = readKeyFile(path);
      if (theirs === null) throw new Error(`${path} vanished while Baton was creating it; start Baton again`);
      return { key: theirs, source: 'file' };
    }
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // already renamed, or never created
    }
  }
  syncDirectory(dataDir);
  return { key, source: 'generated' };
}

/** The key in `path`, or null when the file does not exist. Throws when it exists but is unusable. */
function readKeyFile(path: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return null;
    throw new Error(`cannot read the secrets key file ${path}: ${(error as Error).message}`, { cause: error });
  }
  const key = parseSecretsKey(text);
  if (key === null) {
    throw new Error(
      `the secrets key file ${path} does not hold a base64 32-byte key. Restore it from a backup ` +
        `(secrets stored with another key cannot be read), or set ${SECRETS_KEY_ENV} to the key they were written with`,
    );
  }
  return key;
}

/**
 * Moves `temp` to `path` atomically, failing (false) if `path` already exists. A hard link is the
 * no-clobber primitive; where the file system has no hard links, fall back to rename, which is
 * atomic but would replace a key file created in the same instant by another process.
 */
function publishWithoutClobbering(temp: string, path: string): boolean {
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if (isErrno(error, 'EEXIST')) return false;
    if (
      !isErrno(error, 'EPERM') &&
      !isErrno(error, 'ENOTSUP') &&
      !isErrno(error, 'EOPNOTSUPP') &&
      !isErrno(error, 'ENOSYS')
    ) {
      throw error;
    }
  }
  renameSync(temp, path);
  return true;
}

/** Makes the new directory entry durable, so a crash cannot lose the key after secrets were written with it. */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not supported everywhere (Windows); the file itself is already synced.
  }
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as NodeJS.ErrnoException).code === code;
}
