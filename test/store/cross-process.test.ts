import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { seedTurn } from './store-fixtures.ts';

const run = promisify(execFile);
const workerScript = fileURLToPath(new URL('./cross-process-worker.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const tempDirs: string[] = [];
afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-store-mp-'));
  tempDirs.push(dir);
  return dir;
}

/** Runs the worker script in a separate Node process (its own SQLite connection and locks). */
function worker(args: string[]): Promise<{ stdout: string }> {
  return run(process.execPath, ['--import', 'tsx', workerScript, ...args], { cwd: repoRoot });
}

describe('sqlite shared by several processes', () => {
  it('migrates a fresh file from several processes at once', async () => {
    const filename = join(tempDir(), 'baton.db');
    // Past every worker's startup, so they all migrate at the same moment.
    const startAt = String(Date.now() + 3000);
    const outputs = await Promise.all([0, 1, 2, 3].map(() => worker(['open', filename, startAt])));
    for (const output of outputs) expect(JSON.parse(output.stdout)).toEqual({ opened: true });

    const store = await openStore({ kind: 'sqlite', filename });
    try {
      const { app } = await seedTurn(store);
      expect(await store.apps.get(app.id)).toEqual(app);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('serialises read-then-write transactions: every bump lands exactly once, none fails', async () => {
    const filename = join(tempDir(), 'baton.db');
    const workers = 3;
    const rounds = 20;

    const setup = await openStore({ kind: 'sqlite', filename });
    const { app, conversation, turn } = await seedTurn(setup);
    await setup.close();

    const outputs = await Promise.all(
      Array.from({ length: workers }, (_, n) =>
        worker(['bump', filename, app.id, conversation.id, turn.id, String(rounds), String(n)]),
      ),
    );
    for (const output of outputs) expect(JSON.parse(output.stdout)).toMatchObject({ lostRaces: expect.any(Number) });

    const check = await openStore({ kind: 'sqlite', filename });
    try {
      expect((await check.conversations.get(app.id, conversation.id))?.version).toBe(workers * rounds);
      const items = await check.items.listByTurn(turn.id);
      expect(items).toHaveLength(workers * rounds);
      expect(new Set(items.map((item) => item.seq)).size).toBe(workers * rounds);
    } finally {
      await check.close();
    }
  }, 60_000);
});
