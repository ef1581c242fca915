import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { walCommits } from '../helpers/wal-commit-pages.ts';
import { agentRecord, appRecord, at } from './store-fixtures.ts';

/** Backend-specific behaviour of `openStore`: files on disk. */

const tempDirs: string[] = [];
const openStores: Store[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-store-'));
  tempDirs.push(dir);
  return dir;
}

async function track(store: Promise<Store>): Promise<Store> {
  const opened = await store;
  openStores.push(opened);
  return opened;
}

afterEach(async () => {
  for (const store of openStores.splice(0)) await store.close();
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('sqlite file store', () => {
  it('creates the parent directory, turns WAL on, and keeps data across close and reopen', async () => {
    const filename = join(tempDir(), 'nested', 'dir', 'baton.db');
    const app = appRecord();
    const agent = agentRecord(app.id, 'support');

    const first = await track(openStore({ kind: 'sqlite', filename }));
    await first.apps.insert(app);
    await first.agents.insert(agent);

    // journal_mode is a property of the file, so a second connection reports it.
    const probe = new Database(filename, { readonly: true });
    try {
      expect(probe.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      probe.close();
    }

    await first.close();
    openStores.splice(openStores.indexOf(first), 1);

    // Reopening runs the migrations again, which must be a no-op.
    const second = await track(openStore({ kind: 'sqlite', filename }));
    expect(await second.apps.get(app.id)).toEqual(app);
    expect(await second.agents.get(app.id, 'support')).toEqual(agent);
    const updated = await second.agents.update(app.id, 'support', 1, { ...agent.definition, maxSteps: 2 }, at(9));
    expect(updated?.version).toBe(2);
  });

  it('commits transactions that start together in one commit, and one alone in its own', async () => {
    const filename = join(tempDir(), 'baton.db');
    // The writer's checkpoints: no thread restarts the WAL between the two looks.
    const store = await track(openStore({ kind: 'sqlite', filename, checkpoints: 'writer' }));
    const commits = walCommitCounter(filename);
    await Promise.all(
      [appRecord(), appRecord(), appRecord()].map((app) => store.transaction((tx) => tx.apps.insert(app))),
    );
    expect(commits()).toBe(1);
    await store.transaction((tx) => tx.apps.insert(appRecord()));
    expect(commits()).toBe(1);
  });
});

/**
 * Counts the commits appended to `filename`'s WAL since its last call, from a WAL checkpointed and
 * truncated by a second connection first.
 */
function walCommitCounter(filename: string): () => number {
  const connection = new Database(filename);
  try {
    connection.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    connection.close();
  }
  let seen = 0;
  return () => {
    const commits = walCommits(filename).length;
    const added = commits - seen;
    seen = commits;
    return added;
  };
}

describe('pglite data directory', () => {
  it('keeps data across close and reopen', async () => {
    const dataDir = join(tempDir(), 'pgdata');
    const app = appRecord();

    const first = await track(openStore({ kind: 'pglite', dataDir }));
    await first.apps.insert(app);
    await first.close();
    openStores.splice(openStores.indexOf(first), 1);

    const second = await track(openStore({ kind: 'pglite', dataDir }));
    expect(await second.apps.get(app.id)).toEqual(app);
  }, 90_000); // two PGlite cold starts on disk
});
