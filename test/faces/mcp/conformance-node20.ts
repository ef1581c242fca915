import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Module hooks that let @modelcontextprotocol/conformance 0.1.16 load on Node 20. Its bundled CLI
 * imports `globSync` from `fs`, which Node has only from 22 (and only its `tier-check` command
 * calls it): the hooks take that one name out of the import and bind it to a stub. Written as
 * files for `node --import`, since a child process cannot load this TypeScript module.
 */
const HOOKS = `
const STUB = 'data:text/javascript,' + encodeURIComponent(
  'export function globSync() { throw new Error("fs.globSync needs Node 22 (the conformance tier-check)"); }',
);
const IMPORTED = /globSync as ([A-Za-z_$][\\w$]*),/;

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (!url.includes('/@modelcontextprotocol/conformance/dist/')) return result;
  const source = String(result.source);
  const alias = IMPORTED.exec(source)?.[1];
  if (alias === undefined) return result;
  const stub = 'import { globSync as ' + alias + ' } from ' + JSON.stringify(STUB) + ';\\n';
  const body = source.replace(IMPORTED, '');
  // After the #! line, which must stay first.
  const start = body.startsWith('#!') ? body.indexOf('\\n') + 1 : 0;
  return { ...result, format: 'module', source: body.slice(0, start) + stub + body.slice(start) };
}
`;

/** Writes the hooks into `dir`; returns the file to pass to `node --import`. */
export function writeNode20Hooks(dir: string): string {
  const hooks = join(dir, 'node20-hooks.mjs');
  const register = join(dir, 'node20-register.mjs');
  writeFileSync(hooks, HOOKS);
  writeFileSync(
    register,
    `import { register } from 'node:module';\nimport { pathToFileURL } from 'node:url';\n` +
      `register(pathToFileURL(${JSON.stringify(hooks)}));\n`,
  );
  return register;
}
