import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { SqliteCheckpointer, HAND_OFF_PAGES, WRITER_CHECKPOINT_PAGES } from '../../src/store/sqlite-checkpointer.ts';
import { appRecord } from './store-fixtures.ts';

/** The WAL is copied back into the database file on a thread of its own, not by the writer. */

const run = promisify(execFile);
const PAGE = 4096;
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-checkpoint-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'baton.db');
}

function openWal(filename: string): Database.Database {
  const database = new Database(filename);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  return database;
}

/** Commits `count` transactions of about `pages` pages each. */
function writeCommits(database: Database.Database, count: number, pages: number): void {
  database.exec('create table if not exists blobs (id integer primary key, body blob)');
  const insert = database.prepare('insert into blobs (body) values (?)');
  for (let i = 0; i < count; i++) insert.run(Buffer.alloc(pages * PAGE - 200, i % 251));
}

/** The WAL's length: the most it ever held, since a WAL that starts again is written over, not cut. */
function walPages(filename: string): number {
  return statSync(`${filename}-wal`).size / PAGE;
}

/**
 * About `pages` pages in slices of ten back-to-back 8-page commits with 2 ms between slices: a
 * writer busier than a server at full load (a round trip writes some 20 pages).
 */
async function writeSlices(database: Database.Database, pages: number): Promise<void> {
  for (let written = 0; written < pages; written += 80) {
    writeCommits(database, 10, 8);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** A WAL database's writer with a checkpointer looking every `intervalMs`, both closed after the test. */
function writerWithCheckpointer(intervalMs: number): { filename: string; writer: Database.Database } {
  const filename = tempFile();
  const writer = openWal(filename);
  const checkpointer = new SqliteCheckpointer(writer, intervalMs, 0);
  cleanups.push(
    () => void writer.close(),
    () => checkpointer.stop(),
  );
  return { filename, writer };
}

describe('SqliteCheckpointer', () => {
  it('copies commits into the database file without the writer, which checkpoints only past its own mark', async () => {
    const { filename, writer } = writerWithCheckpointer(10);
    expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(WRITER_CHECKPOINT_PAGES);

    const before = statSync(filename).size;
    // 1 MB: far below the writer's own mark, so only the thread can have copied it.
    writeCommits(writer, 16, 16);
    await expect.poll(() => statSync(filename).size, { timeout: 5_000 }).toBeGreaterThan(before + 1_000_000);
  });

  it('starts the WAL again, the writer making only the last copy, though it never checkpoints on its own', async () => {
    const { filename, writer } = writerWithCheckpointer(5);
    writer.pragma('wal_autocheckpoint = 0');

    // Ten times the thread's mark, in slices of back-to-back commits with moments between them.
    await writeSlices(writer, 10 * HAND_OFF_PAGES);
    // A WAL that never started again would hold every page written.
    expect(walPages(filename)).toBeLessThan(5 * HAND_OFF_PAGES);
  });

  it("keeps the WAL below the writer's own mark beside a writer that commits without pause", async () => {
    const { filename, writer } = writerWithCheckpointer(5);

    // Four times the writer's mark; a writer's checkpoint gives up while the thread's runs, so
    // without the thread's restarts the WAL reached the mark and went past it.
    await writeSlices(writer, 4 * WRITER_CHECKPOINT_PAGES);
    expect(walPages(filename)).toBeLessThan(2 * WRITER_CHECKPOINT_PAGES);
  });

  it('stops its thread, and the last connection to close removes the WAL', async () => {
    const filename = tempFile();
    const writer = openWal(filename);
    const checkpointer = new SqliteCheckpointer(writer, 10, 0);
    writeCommits(writer, 4, 4);
    writer.close();
    await checkpointer.stop();
    expect(() => statSync(`${filename}-wal`)).toThrow(/ENOENT/);
    const reopened = new Database(filename, { readonly: true });
    cleanups.push(() => void reopened.close());
    expect(reopened.prepare('select count(*) as n from blobs').get()).toEqual({ n: 4 });
  });

  it('runs behind a file store opened by openStore', async () => {
    const filename = tempFile();
    const store = await openStore({ kind: 'sqlite', filename });
    cleanups.push(() => store.close());
    const before = statSync(filename).size;
    // Apps with long names: about 2 MB of rows in 64 commits, none of them past the writer's mark.
    for (let i = 0; i < 64; i++) await store.apps.insert({ ...appRecord(), name: `app ${i} ${'x'.repeat(30_000)}` });
    await expect.poll(() => statSync(filename).size, { timeout: 5_000 }).toBeGreaterThan(before + 1_500_000);
  });

  it('starts no thread for a database closed soon after it opened', async () => {
    const filename = tempFile();
    const writer = openWal(filename);
    const checkpointer = new SqliteCheckpointer(writer, 10, 200);
    await checkpointer.stop();
    const before = statSync(filename).size;
    writeCommits(writer, 16, 16);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Nothing copied the commits back: they are all in the WAL still.
    expect(statSync(filename).size).toBe(before);
    writer.close();
  });

  it("keeps the process alive until its thread has closed, so work after the store's close still runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-checkpoint-exit-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const script = join(dir, 'stop.mts');
    const module = new URL('../../src/store/sqlite-checkpointer.ts', import.meta.url).href;
    const driver = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
    writeFileSync(
      script,
      `import Database from '${driver}';
import { SqliteCheckpointer } from '${module}';
const writer = new Database(${JSON.stringify(join(dir, 'baton.db'))});
writer.pragma('journal_mode = WAL');
const checkpointer = new SqliteCheckpointer(writer, 10, 0);
await new Promise((resolve) => setTimeout(resolve, 200));
writer.close();
await checkpointer.stop();
console.log('after stop');
`,
    );
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
    });
    expect(stdout).toContain('after stop');
  });
});
