import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The servers `npm run bench` measures run in child processes (`node --import tsx
 * bench/servers/NAME.ts`). A child reports `{ type: 'ready', url, pid }` over IPC, then answers
 * IPC requests `{ id, cmd, ... }` with `{ id, result }` or `{ id, error }`.
 */

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What a child sends over IPC: its readiness, or the answer to a request. */
interface ChildMessage {
  type?: 'ready';
  url: string;
  pid: number;
  id?: number;
  result?: unknown;
  error?: string;
}

export interface ServerChild {
  url: string;
  pid: number;
  child: ChildProcess;
  call<T>(cmd: string, args?: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

export async function startServer(script: string, env: Record<string, string> = {}): Promise<ServerChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(BENCH_DIR, 'servers', script)], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    child.on('message', (message: ChildMessage) => {
      if (message?.type === 'ready') resolve(message);
      else if (typeof message?.id === 'number') {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(message.error));
        else waiter?.resolve(message.result);
      }
    });
  });
  return {
    url: ready.url,
    pid: ready.pid,
    child,
    call<T>(cmd: string, args: Record<string, unknown> = {}) {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, cmd, ...args });
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
