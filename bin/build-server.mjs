#!/usr/bin/env node
// Compiles src/ to dist/ (tsconfig.build.json; `npm run build` runs this, as `npm install` does),
// then stamps dist/ with the time the build began, for bin/build-state.mjs. The build is incremental
// (dist/.tsbuildinfo); outputs whose source is gone are removed, so dist/ holds only what src/ has.
import { spawnSync } from 'node:child_process';
import { existsSync, closeSync, openSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BUILD_STAMP, REPO_ROOT } from './build-state.mjs';

const began = new Date();
const dist = join(REPO_ROOT, 'dist');
const src = join(REPO_ROOT, 'src');
const sources = readdirSync(src, { recursive: true }).filter((path) => path.endsWith('.ts'));
// tsc's incremental state does not notice outputs deleted behind its back: then build it all.
if (sources.some((path) => !existsSync(join(dist, path.replace(/\.ts$/, '.js')))))
  rmSync(join(dist, '.tsbuildinfo'), { force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', join(REPO_ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);

const kept = new Set(sources.flatMap((path) => [path.replace(/\.ts$/, '.js'), path.replace(/\.ts$/, '.js.map')]));
for (const path of readdirSync(dist, { recursive: true })) {
  if (/\.js(\.map)?$/.test(path) && !kept.has(path)) rmSync(join(dist, path));
}
const stamp = join(REPO_ROOT, BUILD_STAMP);
closeSync(openSync(stamp, 'w'));
utimesSync(stamp, began, began);
