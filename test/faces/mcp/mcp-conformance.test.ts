import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { writeNode20Hooks } from './conformance-node20.ts';

/**
 * The protocol scenarios of the official MCP conformance suite (@modelcontextprotocol/conformance)
 * against a real Baton's `/mcp`. The others test the suite's own "everything" server (its fixture
 * tools, resources and prompts), or capabilities Baton does not declare (logging, completions,
 * sampling, elicitation), for which -32601 Method not found is the right answer.
 */
const PROTOCOL_SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/**
 * The suite's CLI, when installed: as a devDependency, or in the directory `MCP_CONFORMANCE_DIR`
 * names (a scratch `npm i @modelcontextprotocol/conformance@0.1.16`). Without it the test is skipped.
 */
function conformanceCli(): string | undefined {
  const require = createRequire(import.meta.url);
  const from = process.env.MCP_CONFORMANCE_DIR;
  try {
    const manifest = require.resolve(
      '@modelcontextprotocol/conformance/package.json',
      from ? { paths: [from] } : undefined,
    );
    return join(dirname(manifest), 'dist', 'index.js');
  } catch {
    return undefined;
  }
}

/**
 * The suite cannot send headers, and `/mcp` needs an API key: this proxy adds it, and passes every
 * other header (Host and Origin included, which the DNS-rebinding scenario forges) as it is.
 */
function keyAddingProxy(target: string): Server {
  const { hostname, port } = new URL(target);
  return createServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      {
        host: hostname,
        port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${ADMIN_KEY}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
  errorMessage?: string;
}

function checksIn(dir: string): Check[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('checks.json'))
    .flatMap((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Check[]);
}

const cli = conformanceCli();
const needsHooks = Number(process.versions.node.split('.')[0]) < 22;

describe.skipIf(cli === undefined)('/mcp: the official MCP conformance suite (protocol scenarios)', () => {
  let baton: TestBaton;
  let proxy: Server;
  let url: string;
  let hooks: string[] = [];
  beforeAll(async () => {
    if (needsHooks) hooks = ['--import', writeNode20Hooks(mkdtempSync(join(tmpdir(), 'mcp-conformance-hooks-')))];
    baton = await startTestBaton();
    proxy = keyAddingProxy(baton.url);
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    // `localhost`, as a local MCP server is addressed: the suite's valid-Host check sends it back.
    url = `http://localhost:${(proxy.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await baton?.close();
  });

  it.each(PROTOCOL_SCENARIOS)('%s passes', async (scenario) => {
    const output = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
    const args = [...hooks, cli!, 'server', '--url', url, '--scenario', scenario, '-o', output];
    const run = await new Promise<{ code: number; log: string }>((resolve) => {
      execFile(process.execPath, args, { timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: typeof error?.code === 'number' ? error.code : error ? 1 : 0, log: `${stdout}${stderr}` }),
      );
    });
    const checks = checksIn(output);
    const failures = checks.filter((check) => check.status === 'FAILURE');
    expect(failures, run.log).toEqual([]);
    expect(checks.length, run.log).toBeGreaterThan(0);
    expect(run.code, run.log).toBe(0);
  });
});
