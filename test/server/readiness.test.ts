import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/**
 * `/healthz` says the process answers; `/readyz` says it can serve: the database answers and has
 * every migration this code needs (and the process is not draining: see
 * test/reliability/graceful-shutdown.test.ts). Both need no key, as a load balancer calls them.
 */
describe('health and readiness', () => {
  let server: TestBaton | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await server?.close().catch(() => undefined);
    server = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const get = async (path: string) => {
    const response = await fetch(`${server!.url}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('answers both without a key when all is well', async () => {
    server = await startTestBaton();
    expect(await get('/healthz')).toEqual({ status: 200, body: { ok: true } });
    expect(await get('/readyz')).toEqual({ status: 200, body: { ready: true } });
  });

  it('is not ready when a migration is missing, naming it, while still alive', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-ready-'));
    const filename = join(dir, 'baton.db');
    server = await startTestBaton({}, { store: { kind: 'sqlite', filename } });
    // Another tool rolled the schema back under the running server.
    const database = new Database(filename);
    const latest = database.prepare('select name from kysely_migration order by name desc limit 1').get() as {
      name: string;
    };
    database.prepare('delete from kysely_migration where name = ?').run(latest.name);
    database.close();
    const readiness = await get('/readyz');
    expect(readiness.status).toBe(503);
    expect(readiness.body).toEqual({
      ready: false,
      problem: `migrations not applied: ${latest.name} (run baton migrate)`,
    });
    expect((await get('/healthz')).status).toBe(200);
  });

  it('is not ready when the database does not answer', async () => {
    server = await startTestBaton();
    await server.baton.store.close();
    const readiness = await get('/readyz');
    expect(readiness.status).toBe(503);
    expect(readiness.body.problem).toMatch(/^the database does not answer/);
  });
});
