import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

const run = promisify(execFile);

/** `baton keys`: create, list, rotate and revoke through the SDK, as an app admin would from a shell. */
describe('baton keys', () => {
  let server: TestBaton;
  let admin: string;
  beforeAll(async () => {
    server = await startTestBaton();
    admin = (await server.request('POST', '/v1/apps', { name: 'cli-keys' })).body.api_key.key;
  });
  afterAll(async () => server.close());

  const keys = async (...args: string[]) => {
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'keys', ...args], {
        env: { ...process.env, BATON_URL: server.url, BATON_API_KEY: admin },
      });
      return { code: 0, output: stdout };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, output: failed.stdout + failed.stderr };
    }
  };

  it('creates a key and prints its secret once, lists it without, rotates and revokes it', async () => {
    const created = await keys('create', '--role', 'reader', '--name', 'dashboard');
    expect(created.code).toBe(0);
    const secret = /secret \(shown once\): (bk_\S+)/.exec(created.output)?.[1];
    expect(secret).toBeDefined();
    const id = created.output.split(/\s+/)[0]!;
    expect(id).toMatch(/^key_/);

    const listed = await keys('list');
    expect(listed.output).toContain(id);
    expect(listed.output).toContain('dashboard');
    expect(listed.output).not.toContain(secret);

    const rotated = await keys('rotate', id, '--grace', '0');
    expect(rotated.code).toBe(0);
    expect(rotated.output).toMatch(/old: key_\S+ .* expires /);
    const newId = /new: (key_\S+)/.exec(rotated.output)?.[1];
    const old = await server.request('GET', '/v1/me', undefined, { authorization: `Bearer ${secret}` });
    expect(old.status).toBe(401);

    const revoked = await keys('revoke', newId!);
    expect(revoked.code).toBe(0);
    expect(revoked.output).toContain('revoked');

    const refused = await keys('create', '--role', 'operator');
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("role 'operator'");
  }, 120_000);
});
