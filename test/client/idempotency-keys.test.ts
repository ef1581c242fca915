import { createHash, webcrypto } from 'node:crypto';
import { derivedIdempotencyKey, randomIdempotencyKey } from '@baton/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sha256Bytes } from '../../packages/client/src/http/sha256.ts';

describe('idempotency keys', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('derives the same key from the same ids in any order, another from other results', async () => {
    const key = await derivedIdempotencyKey('threads-results', ['call_b', 'call_a'], 'payload');
    expect(key).toMatch(/^baton-threads-results-[0-9a-f]{64}$/);
    expect(await derivedIdempotencyKey('threads-results', ['call_a', 'call_b'], 'payload')).toBe(key);
    expect(await derivedIdempotencyKey('threads-results', ['call_a', 'call_b'], 'other payload')).not.toBe(key);
    expect(await derivedIdempotencyKey('decision', ['call_a', 'call_b'], 'payload')).not.toBe(key);
  });

  it('the plain-JS SHA-256 agrees with node:crypto, across block boundaries and UTF-8', () => {
    for (const text of ['', 'abc', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'x'.repeat(1000), 'café ☕ 🚀']) {
      const ours = Buffer.from(sha256Bytes(new TextEncoder().encode(text))).toString('hex');
      expect(ours, text.slice(0, 10)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    }
  });

  it('works without Web Crypto digests and randomUUID (browsers outside secure contexts)', async () => {
    const withSubtle = await derivedIdempotencyKey('threads-results', ['call_1'], 'p');
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => webcrypto.getRandomValues(bytes) });
    expect(await derivedIdempotencyKey('threads-results', ['call_1'], 'p')).toBe(withSubtle);
    expect(randomIdempotencyKey()).toMatch(/^baton-[0-9a-f]{32}$/);
  });
});
