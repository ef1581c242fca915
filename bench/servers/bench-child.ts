import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { DEFAULT_LIMITS } from '../../src/server/limit-settings.ts';
import { startSqlStats, stopSqlStats } from '../sql-stats.ts';
import { commitsSoFar, statementsSoFar } from '../statement-counter.ts';

/**
 * What the bench's Baton children share (servers/baton-server.ts, servers/baton-background-server.ts):
 * the request limits, the IPC commands every child answers, and the IPC loop itself.
 */

/**
 * The load comes from one app, far past a tenant's default request rate: the bench measures
 * throughput, so the per-app and total limits are set to their maximum.
 */
export const BENCH_LIMITS = {
  ...DEFAULT_LIMITS,
  requestsPerMinutePerApp: 1_000_000,
  requestsPerMinuteTotal: 1_000_000,
  turnsPerApp: 10_000,
  turnsTotal: 10_000,
};

/**
 * IPC requests every child answers:
 *   profile-start {} / profile-stop { file }   a V8 CPU profile of exactly the window in between,
 *                                       written as a .cpuprofile (same format as --cpu-prof)
 *   sql-stats-start {} / sql-stats-stop {}   time inside SQLite per statement in between
 *   statements {} / commits {}          SQL statements sent and SQLite commits so far (with
 *                                       BENCH_COUNT_STATEMENTS=1)
 */
export type CommonRequest =
  | { id: number; cmd: 'profile-start' }
  | { id: number; cmd: 'profile-stop'; file: string }
  | { id: number; cmd: 'sql-stats-start' }
  | { id: number; cmd: 'sql-stats-stop' }
  | { id: number; cmd: 'statements' }
  | { id: number; cmd: 'commits' };

const COMMON_COMMANDS: ReadonlySet<string> = new Set([
  'profile-start',
  'profile-stop',
  'sql-stats-start',
  'sql-stats-stop',
  'statements',
  'commits',
]);

let inspector: Session | null = null;

async function handleCommon(request: CommonRequest): Promise<unknown> {
  switch (request.cmd) {
    case 'profile-start':
      inspector = new Session();
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.setSamplingInterval', { interval: 500 });
      await inspector.post('Profiler.start');
      return null;
    case 'profile-stop': {
      if (!inspector) throw new Error('profile-stop without profile-start');
      const { profile } = await inspector.post('Profiler.stop');
      inspector.disconnect();
      inspector = null;
      writeFileSync(request.file, JSON.stringify(profile));
      return request.file;
    }
    case 'sql-stats-start':
      startSqlStats();
      return null;
    case 'sql-stats-stop':
      return stopSqlStats();
    case 'statements':
      return statementsSoFar();
    case 'commits':
      return commitsSoFar();
  }
}

/**
 * Answers the parent's IPC requests ({ id, cmd, ... } → { id, result } | { id, error }): the
 * common ones here, the child's own with `handle`. Tells the parent it is ready at `url`, and on
 * SIGTERM or when the parent goes, runs `close` and exits normally (so --cpu-prof writes its profile).
 */
export function serveBenchChild<Own extends { id: number; cmd: string }>(
  url: string,
  handle: (request: Own) => Promise<unknown>,
  close: () => Promise<void>,
): void {
  process.on('message', (request: Own | CommonRequest) => {
    const answer = COMMON_COMMANDS.has(request.cmd) ? handleCommon(request as CommonRequest) : handle(request as Own);
    answer.then(
      (result) => process.send?.({ id: request.id, result }),
      (error: unknown) =>
        process.send?.({
          id: request.id,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        }),
    );
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await close();
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.send?.({ type: 'ready', url, pid: process.pid });
}
