/** What a pool and its workers say to each other (worker-pool.ts, worker-host.ts). */

/** Pool → worker: run this task. */
export interface TaskMessage {
  readonly id: number;
  readonly task: unknown;
}

/** Worker → pool: the task module is loaded; or a task's outcome. */
export type HostMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'done'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly type: 'done'; readonly id: number; readonly ok: false; readonly message: string };
