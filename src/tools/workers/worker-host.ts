import { readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import type { HostMessage, TaskMessage } from './worker-messages.ts';

/**
 * The worker side of a pool (worker-pool.ts): loads the task module named in `workerData`, waits
 * for its optional `ready` promise (a module to load ahead, say), says it is ready, then runs one
 * task at a time with the module's default export and posts back its value or its error's message.
 *
 * How the module is loaded follows how the server runs. From dist/ this file is an ES module and
 * imports the compiled task module. As source, the pool starts the worker with tsx's CommonJS hook
 * (`--require tsx/cjs`), because on Node 20 the ESM loader hooks that `--import tsx` installs do not
 * reach worker threads: the `.ts` task module is `require`d and compiled by that hook.
 * (No top-level await: as source this file is itself compiled to CommonJS.)
 */

const port = parentPort;
if (!port) throw new Error('worker-host runs inside a worker thread started by WorkerPool');
const { module, niceness } = workerData as { module: string; niceness: number };

// A module that cannot be loaded rejects unhandled: the worker dies with that error before saying it
// is ready, and the pool fails the waiting tasks with it.
void load(module).then(({ run, ready }) => {
  port.on('message', (message: TaskMessage) => {
    void answer(run, message);
  });
  // A failed warm-up is not fatal: the first task meets the same failure and reports it.
  // Loading runs at the server's priority (it is bounded work, and a slow start delays the first
  // task); the tasks, which may spin, run at the lower one.
  return Promise.resolve(ready)
    .catch(() => undefined)
    .then(() => {
      lowerPriority(niceness);
      port.postMessage({ type: 'ready' } satisfies HostMessage);
    });
});

async function load(path: string): Promise<{ run: (task: unknown) => unknown; ready: unknown }> {
  type TaskModule = { default?: unknown; ready?: unknown };
  const loaded: TaskModule = /\.[cm]?ts$/.test(path)
    ? (createRequire(import.meta.url)(path) as TaskModule)
    : ((await import(pathToFileURL(path).href)) as TaskModule);
  const handler = loaded.default;
  if (typeof handler !== 'function') throw new Error(`${path} has no default export to run tasks with`);
  return { run: handler as (task: unknown) => unknown, ready: loaded.ready };
}

async function answer(run: (task: unknown) => unknown, { id, task }: TaskMessage): Promise<void> {
  let reply: HostMessage;
  try {
    reply = { type: 'done', id, ok: true, value: await run(task) };
  } catch (error) {
    reply = { type: 'done', id, ok: false, message: describe(error) };
  }
  try {
    port?.postMessage(reply);
  } catch (error) {
    // A value with no structured-clone form (a function, say) is the task module's bug; say so.
    port?.postMessage({ type: 'done', id, ok: false, message: describe(error) } satisfies HostMessage);
  }
}

/**
 * Lowers this thread's CPU priority (Linux: a thread is a task with its own id, which
 * setpriority takes): when cores are short, the event loop serving requests is scheduled before a
 * task that spins. Best effort: elsewhere, or if refused, the thread keeps the process's priority.
 */
function lowerPriority(increment: number): void {
  if (increment <= 0) return;
  try {
    const thread = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(thread)) setPriority(thread, increment);
  } catch {
    // Not Linux, or no /proc: the priority stays as it is.
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
