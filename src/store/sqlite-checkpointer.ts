import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** How often the checkpointer looks for new commits. */
const DEFAULT_INTERVAL_MS = 50;
/** How long after the database opens the checkpointer's thread starts. */
const DEFAULT_START_AFTER_MS = 1_000;
/**
 * WAL pages after which the writer checkpoints itself, as SQLite does by default at 1,000. It is
 * what restarts the WAL: a checkpoint that runs while the writer commits never catches up with
 * it, and the WAL only starts again from its beginning once every page in it was copied back.
 * The checkpointer has copied all but the last few by then, so the writer's share stays small.
 */
export const WRITER_CHECKPOINT_PAGES = 4_000;

/**
 * The checkpointer's thread: a line of CommonJS, so that it runs the same from source and from
 * dist/ (Node 20 does not start a worker on a .ts file). It checkpoints (PASSIVE: it never waits
 * for or blocks the writer) whenever another connection committed since its last look.
 */
const CHECKPOINT_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
let seen = -1;
const timer = setInterval(() => {
  try {
    const version = db.pragma('data_version', { simple: true });
    if (version === seen) return;
    seen = version;
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A failed look is retried at the next; the writer's own checkpoints keep the WAL bounded.
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Copies the WAL back into an SQLite database file on a thread of its own. SQLite checkpoints by
 * default in the connection that commits, after the commit that fills the WAL past 1,000 pages:
 * then the event loop writes some 1,000 pages to the database file and syncs it, a few ms that
 * came to more than half of a commit's mean cost in issue 22's round trip and to its slowest
 * requests. The writer keeps a checkpoint of its own at `WRITER_CHECKPOINT_PAGES`, which restarts
 * the WAL and bounds it should this thread fall behind or fail.
 */
export class SqliteCheckpointer {
  private worker: Worker | null = null;
  private readonly starting: NodeJS.Timeout;
  private stopped: Promise<void> | null = null;

  /**
   * The thread starts after `startAfterMs`: a process that opens the database and soon closes it
   * (a CLI command, `baton migrate`) never starts one.
   */
  constructor(database: Database.Database, intervalMs = DEFAULT_INTERVAL_MS, startAfterMs = DEFAULT_START_AFTER_MS) {
    database.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
    this.starting = setTimeout(() => this.start(database.name, intervalMs), startAfterMs);
    this.starting.unref();
  }

  /**
   * Stops the thread; the promise settles once it has closed its connection. Whichever of the two
   * connections closes last checkpoints what is left and removes the WAL, as SQLite always does.
   */
  stop(): Promise<void> {
    clearTimeout(this.starting);
    if (!this.stopped) {
      const worker = this.worker;
      this.stopped = worker ? new Promise<void>((resolve) => worker.once('exit', () => resolve())) : Promise.resolve();
      // Held while it closes: awaiting an unreferenced thread would let the process end first.
      worker?.ref();
      worker?.postMessage('stop');
    }
    return this.stopped;
  }

  private start(filename: string, intervalMs: number): void {
    if (this.stopped) return;
    const worker = new Worker(CHECKPOINT_THREAD, {
      eval: true,
      execArgv: [],
      workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), filename, intervalMs },
    });
    // The writer checkpoints without it: a thread that fails, or a process on its way out, loses nothing.
    worker.on('error', () => {});
    worker.unref();
    this.worker = worker;
  }
}
