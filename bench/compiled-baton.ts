import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { createBaton } from '../src/server/start-baton.ts';

const REPO_ROOT = join(import.meta.dirname, '..');

/**
 * Builds dist/ unless it is current with the sources (bin/build-state.mjs): the bench's Baton runs
 * compiled, as `npm start` does.
 */
export async function ensureCompiled(log: (message: string) => void): Promise<void> {
  const stateModule = pathToFileURL(join(REPO_ROOT, 'bin/build-state.mjs')).href;
  const { buildState } = (await import(stateModule)) as { buildState: () => { current: boolean; reason?: string } };
  const state = buildState();
  if (state.current) return;
  log(`building dist/ first (${state.reason})`);
  const built = spawnSync('npm', ['run', 'build:server', '--silent'], { cwd: REPO_ROOT, stdio: 'inherit' });
  if (built.status !== 0 || !buildState().current) throw new Error('npm run build:server failed: dist/ is not current');
}

/**
 * `createBaton` from dist/, the server as `npm start` runs it. Run from the sources through tsx,
 * every closure the server makes is also named at run time (esbuild's keepNames), a cost of a few
 * percent that production does not pay. The bench's parent builds dist/ first (`ensureCompiled`).
 */
export async function compiledCreateBaton(): Promise<typeof createBaton> {
  const url = pathToFileURL(join(REPO_ROOT, 'dist/server/start-baton.js')).href;
  return ((await import(url)) as { createBaton: typeof createBaton }).createBaton;
}
