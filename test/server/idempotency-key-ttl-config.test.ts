import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/config.ts';

describe('server.idempotency_key_ttl_hours', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function dirWith(yaml: string | null): string {
    const dir = mkdtempSync(join(tmpdir(), 'baton-config-'));
    dirs.push(dir);
    if (yaml !== null) writeFileSync(join(dir, 'baton.yaml'), yaml);
    return dir;
  }

  it('is 24 by default, a whole number of hours from 1 to 720', () => {
    expect(loadConfig({}, dirWith(null)).idempotencyKeyTtlHours).toBe(24);
    expect(loadConfig({}, dirWith('server:\n  idempotency_key_ttl_hours: 1\n')).idempotencyKeyTtlHours).toBe(1);
    expect(loadConfig({}, dirWith('server:\n  idempotency_key_ttl_hours: 720\n')).idempotencyKeyTtlHours).toBe(720);
    for (const bad of ['0', '721', '2.5', 'forever'])
      expect(() => loadConfig({}, dirWith(`server:\n  idempotency_key_ttl_hours: ${bad}\n`))).toThrow(
        /server\.idempotency_key_ttl_hours/,
      );
  });
});
