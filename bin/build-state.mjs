// Whether dist/ (the compiled server, `npm run build`) is current with the sources, read from file
// times alone so that asking costs a few milliseconds at every start. bin/build-server.mjs writes the
// stamp; bin/baton.mjs and the compiled start-up test ask.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Written by bin/build-server.mjs; its time is when the build began. */
export const BUILD_STAMP = 'dist/.build-stamp';
export const SERVER_ENTRY = 'dist/cli/main.js';
const CLIENT_ENTRY = 'packages/client/dist/index.js';

/**
 * `{ current: true }`, or `{ current: false, reason }` saying what to rebuild and why: no build, or a
 * source (src/, tsconfig.build.json, packages/client/src, which the CLI imports as @baton/client)
 * changed after the build that made it began. Folders count too, so a removed file is seen.
 */
export function buildState(root = REPO_ROOT) {
  const stamp = mtimeOf(join(root, BUILD_STAMP));
  if (stamp === undefined || !existsSync(join(root, SERVER_ENTRY)))
    return { current: false, reason: `${SERVER_ENTRY} has not been built` };
  const server = newest(root, ['src', 'tsconfig.build.json']);
  if (server && server.mtimeMs > stamp)
    return { current: false, reason: `${server.path} changed after the last build` };
  const client = mtimeOf(join(root, CLIENT_ENTRY));
  if (client === undefined) return { current: false, reason: `${CLIENT_ENTRY} has not been built` };
  const clientSource = newest(root, ['packages/client/src']);
  if (clientSource && clientSource.mtimeMs > client)
    return { current: false, reason: `${clientSource.path} changed after the last build` };
  return { current: true };
}

function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The most recently modified file or folder under `paths` (relative to `root`). */
function newest(root, paths) {
  let found;
  const consider = (path) => {
    const mtimeMs = mtimeOf(path);
    if (mtimeMs !== undefined && (!found || mtimeMs > found.mtimeMs)) found = { path: relative(root, path), mtimeMs };
  };
  for (const path of paths) {
    const full = join(root, path);
    consider(full);
    if (!statSync(full, { throwIfNoEntry: false })?.isDirectory()) continue;
    for (const entry of readdirSync(full, { recursive: true })) consider(join(full, entry));
  }
  return found;
}
