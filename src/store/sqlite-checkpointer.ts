import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** How often the checkpointer looks for new commits. */
const DEFAULT_INTERVAL_MS = 50;
/** How long after the database opens the checkpointer's thread starts. */
const DEFAULT_START_AFTER_MS = 1_000;
/**
 * WAL pages after which the thread hands the last copy to the writer. The WAL only starts again
 * from its beginning once every page in it was copied back, which a checkpoint beside a writer
 * that keeps committing never achieves: it copies what was there when it began. Only the writer,
 * between its transactions, can copy the last pages while nothing is added; the thread has copied
 * all but those by then, so the writer's share is small.
 */
export const HAND_OFF_PAGES = 2_000;
/**
 * WAL pages after which the writer checkpoints itself, as SQLite does by default at 1,000: the
 * bound should the thread fail. It is no bound beside a live thread, since the writer's
 * checkpoint gives up whenever the thread's is running (with only it to restart the WAL, the WAL
 * reached 4,000 pages and more on a loaded machine; up to 20,000 written).
 */
export const WRITER_CHECKPOINT_PAGES = 4_000;

/**
 * The checkpointer's thread: a line of CommonJS, so that it runs the same from source and from
 * dist/ (Node 20 does not start a worker on a .ts file). It checkpoints (PASSIVE: it never waits
 * for or blocks the writer) whenever another connection committed since its last look. Once the
 * WAL holds `handOffPages` it asks the writer's thread for the last copy, and pauses until it
 * answered, so that the two never contend for the checkpoint lock.
 */
const CHECKPOINT_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
let seen = -1;
let handedOff = false;
const timer = setInterval(() => {
  if (handedOff) return;
  try {
    const version = db.pragma('data_version', { simple: true });
    if (version === seen) return;
    seen = version;
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    if (log < workerData.handOffPages) return;
    handedOff = true;
    parentPort.postMessage('hand-off');
  } catch {
    // A failed look is retried at the next; the writer's own checkpoints keep the WAL bounded.
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'handed-back') {
    handedOff = false;
    return;
  }
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
 * requests. The writer's event loop makes only the last copy, which restarts the WAL (see
 * `HAND_OFF_PAGES`), and keeps a checkpoint of its own at `WRITER_CHECKPOINT_PAGES`, which bounds
 * the WAL should this thread fail.
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
    this.starting = setTimeout(() => this.start(database, intervalMs), startAfterMs);
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

  private start(database: Database.Database, intervalMs: number): void {
    if (this.stopped) return;
    const worker = new Worker(CHECKPOINT_THREAD, {
      eval: true,
      execArgv: [],
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        filename: database.name,
        intervalMs,
        handOffPages: HAND_OFF_PAGES,
      },
    });
    worker.on('message', () => {
      copyTheRest(database);
      if (!this.stopped) worker.postMessage('handed-back');
    });
    // The writer checkpoints without it: a thread that fails, or a process on its way out, loses nothing.
    worker.on('error', () => {});
    worker.unref();
    this.worker = worker;
  }
}

/**
 * The last copy, on the writer's connection between its transactions: it copies every page left,
 * so the writer's next transaction starts the WAL again. PASSIVE, since another process's
 * transaction must not stall this event loop; one that is open leaves the copy to a later hand-off.
 */
function copyTheRest(database: Database.Database): void {
  if (!database.open || database.inTransaction) return;
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or closing: the thread hands off again at its next look.
  }
}
