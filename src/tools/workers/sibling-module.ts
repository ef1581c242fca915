/**
 * The module `name` in the same folder as `base` (a caller's `import.meta.url`), with the caller's own
 * extension: `.ts` when the caller runs as source (tsx, vitest), `.js` when it runs compiled from
 * dist/ (`npm start`). Modules loaded by URL at run time (worker entries) are named through this, so
 * one line serves both ways of running and nothing compares paths against `src/` or `dist/`.
 */
export function siblingModule(base: string, name: string): URL {
  const extension = /\.[cm]?[jt]s$/.exec(new URL(base).pathname)?.[0];
  if (!extension) throw new Error(`cannot tell how ${base} runs: it does not end in .ts or .js`);
  return new URL(`./${name}${extension}`, base);
}

/** True for a module that needs a TypeScript loader (tsx) to run. */
export function isTypeScriptModule(url: URL): boolean {
  return /\.[cm]?ts$/.test(url.pathname);
}
