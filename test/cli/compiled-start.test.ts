import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stringify as stringifyYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { freePort, PROCESS_ADMIN_KEY, REPO_ROOT } from '../reliability/baton-process.ts';
import { PriceApi } from '../server-tools/server-tool-fixtures.ts';

/**
 * `npm start` as it runs after `npm install`: bin/baton.mjs starting the compiled server in dist/,
 * with no TypeScript loader in the process. The server answers, a Threads round trip works, and
 * both worker pools (the sandbox, OpenAPI) start their threads from dist/.
 *
 * The build is made first when dist/ is not current with src/ (as bin/build-state.mjs tells), so the
 * test never runs an older build than the sources. `.ci/run` builds on `npm install`; here a
 * rebuild costs about half a minute, only after sources changed.
 */

interface BuildState {
  current: boolean;
  reason?: string;
}
type BuildStateOf = (root?: string) => BuildState;

// A computed specifier: bin/ is plain JavaScript that TypeScript does not type.
const buildStateModule = pathToFileURL(join(REPO_ROOT, 'bin/build-state.mjs')).href;
const { buildState } = (await import(buildStateModule)) as { buildState: BuildStateOf };

/**
 * Loaded with `--import` into the server's main thread: any attempt to resolve tsx (bin/baton.mjs
 * falling back to the sources, a worker pool asking for tsx's CommonJS hook) throws and says so on
 * stderr. Worker threads are started with an empty execArgv and get no hook, but a compiled worker
 * that needed tsx could not load at all.
 */
const FORBID_TSX = `
import Module, { register } from 'node:module';
const forbidden = (specifier) => /^tsx(\\/|$)/.test(specifier);
const refuse = (specifier) => {
  process.stderr.write('FORBIDDEN: tsx requested (' + specifier + ')\\n');
  return new Error('the compiled server must not load tsx; it asked for ' + specifier);
};
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (forbidden(request)) throw refuse(request);
  return resolveFilename.call(this, request, ...rest);
};
register('data:text/javascript,' + encodeURIComponent(
  'export async function resolve(specifier, context, next) {' +
  '  if (/^tsx(\\\\/|$)/.test(specifier)) throw new Error("the compiled server must not load tsx: " + specifier);' +
  '  return next(specifier, context);' +
  '}'));
`;

const APP = 'projects/default/locations/global/apps/default';
const SEED = 'I need approval to process a $500 refund';
const APPROVED = '{"approved": true, "approved_by": "manager@company.com"}';

function ensureBuilt(): void {
  const before = buildState();
  if (before.current) return;
  // The server's build, with the client SDK's (the CLI imports @baton/client from packages/client/dist).
  const run = spawnSync('npm', ['run', 'build:server'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 240_000 });
  if (run.status !== 0)
    throw new Error(
      `npm run build:server failed (dist/ was not current: ${before.reason}):\n${run.stdout}${run.stderr}`,
    );
  const after = buildState();
  if (!after.current) throw new Error(`dist/ is still not current after the build: ${after.reason}`);
}

describe('npm start runs the compiled server', () => {
  const api = new PriceApi();
  let dir: string;
  let child: ChildProcess;
  let url: string;
  let output = '';
  let exited: Promise<unknown>;

  async function request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${PROCESS_ADMIN_KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) };
    } catch {
      return { status: response.status, body: text };
    }
  }

  async function say(agent: string, text: string): Promise<any> {
    const thread = await request('POST', '/v1/threads', { agent });
    expect(thread.status, JSON.stringify(thread.body)).toBe(200);
    const reply = await request('POST', `/v1/threads/${thread.body.id}/messages`, { role: 'user', content: text });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body;
  }

  beforeAll(async () => {
    ensureBuilt();
    await api.start();
    dir = mkdtempSync(join(tmpdir(), 'baton-compiled-start-'));
    const configFile = join(dir, 'baton.yaml');
    writeFileSync(
      configFile,
      stringifyYaml({
        agents: [DEMO_AGENT],
        egress: { allow: ['127.0.0.1/32'] },
        scripted: {
          tools: {
            rules: [
              { when: { user: 'quote' }, call: { tool: 'quote', arguments: { amount: 3 } } },
              { when: { user: 'price' }, call: { tool: 'lookup_price', arguments: { sku: 'B-2' } } },
              { when: { tool_error: true }, say: 'Failed: {{result}}' },
              { when: { tool_result: true }, say: 'Done: {{result}}' },
              { say: 'ok' },
            ],
          },
        },
      }),
    );
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      BATON_DATA_DIR: join(dir, 'data'),
      BATON_ADMIN_KEY: PROCESS_ADMIN_KEY,
      BATON_CONFIG: configFile,
      LOG_LEVEL: 'warn',
    };
    // Vitest's settings (NODE_OPTIONS carries its loader) are not the operator's.
    for (const name of ['NODE_OPTIONS', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID', 'DATABASE_URL'])
      delete env[name];
    const forbid = `data:text/javascript,${encodeURIComponent(FORBID_TSX)}`;
    // package.json's start script, with the guard in front.
    const start = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
      .scripts.start;
    expect(start).toBe('node bin/baton.mjs serve');
    child = spawn(process.execPath, ['--import', forbid, 'bin/baton.mjs', 'serve'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    exited = new Promise((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the compiled server exited (${child.exitCode}):\n${output}`);
      const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`no /healthz answer within 30 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, 300_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await api.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers /healthz from dist/, without tsx', async () => {
    expect((await request('GET', '/healthz')).body).toEqual({ ok: true });
    expect(output).not.toContain('FORBIDDEN');
    expect(output).not.toContain('through tsx');
    // The entry the process runs is the compiled one.
    const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(cmdline.slice(1)).toEqual(['--import', expect.stringMatching(/^data:/), 'bin/baton.mjs', 'serve']);
  });

  it('reads package.json from dist/ (the version in the OpenAPI document)', async () => {
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const document = await request('GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.info.version).toBe(version);
  });

  it('does a Threads round trip with the demo agent', async () => {
    const created = await request('POST', '/v1/threads', { agent: 'refund-desk' });
    expect(created.status).toBe(200);
    const thread = created.body.id as string;
    const paused = await request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: SEED });
    expect(paused.body.choices[0].finish_reason).toBe('tool_use');
    const callId = paused.body.choices[0].message.tool_calls[0].id as string;
    const resumed = await request('POST', `/v1/threads/${thread}/messages`, {
      role: 'user',
      content: [{ type: 'tool_result', tool_call_id: callId, content: APPROVED }],
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.choices[0].finish_reason).toBe('stop');
    expect(resumed.body.choices[0].message.content).toContain('manager@company.com');
  });

  it('runs a jsFunction tool in a sandbox worker started from dist/', async () => {
    const tool = await request('POST', `/v1/${APP}/tools?toolId=quote`, {
      jsFunction: {
        name: 'quote',
        parameters: { type: 'OBJECT', properties: { amount: { type: 'NUMBER' } }, required: ['amount'] },
        jsCode: 'function quote(args) { return { total: args.amount * 2 }; }',
      },
    });
    expect(tool.status, JSON.stringify(tool.body)).toBe(200);
    const agent = await request('POST', `/v1/${APP}/agents?agentId=js-quote`, {
      displayName: 'js-quote',
      instruction: 'Quote.',
      modelSettings: { model: 'scripted:tools' },
      tools: [`${APP}/tools/quote`],
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(200);
    const reply = await say('js-quote', 'quote');
    expect(reply.choices[0].message.content).toBe('Done: {"total":6}');
    expect(output).not.toContain('FORBIDDEN');
  }, 60_000);

  it('reads an OpenAPI document in an OpenAPI worker started from dist/ and calls the API', async () => {
    const tool = await request('POST', `/v1/${APP}/tools?toolId=price`, {
      openApiTool: { openApiSchema: api.document() },
    });
    expect(tool.status, JSON.stringify(tool.body)).toBe(200);
    const agent = await request('POST', `/v1/${APP}/agents?agentId=price-desk`, {
      displayName: 'price-desk',
      instruction: 'Prices.',
      modelSettings: { model: 'scripted:tools' },
      tools: [`${APP}/tools/price`],
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(200);
    const reply = await say('price-desk', 'price');
    expect(reply.choices[0].message.content).toContain('"price":42');
    expect(api.requests.map((entry) => entry.url)).toEqual(['/prices/B-2']);
    expect(output).not.toContain('FORBIDDEN');
  }, 60_000);
});

describe('bin/build-state.mjs: is dist/ current with the sources', () => {
  let root: string;
  const at = (path: string, seconds: number) => {
    const full = join(root, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, '');
    utimesSync(full, seconds, seconds);
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'baton-build-state-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is not current before a build, current after one, and stale once a source changes', () => {
    at('src/cli/main.ts', 1_000);
    at('tsconfig.build.json', 1_000);
    at('packages/client/src/index.ts', 1_000);
    // Folders count (a removed file changes its folder), so they are dated too.
    for (const folder of ['src', 'src/cli', 'packages/client/src']) utimesSync(join(root, folder), 1_000, 1_000);
    expect(buildState(root)).toEqual({ current: false, reason: 'dist/cli/main.js has not been built' });

    at('dist/cli/main.js', 2_000);
    at('dist/.build-stamp', 2_000);
    expect(buildState(root)).toEqual({ current: false, reason: 'packages/client/dist/index.js has not been built' });
    at('packages/client/dist/index.js', 2_000);
    expect(buildState(root)).toEqual({ current: true });

    at('src/cli/main.ts', 3_000);
    expect(buildState(root)).toEqual({ current: false, reason: 'src/cli/main.ts changed after the last build' });
    at('src/cli/main.ts', 1_000);
    writeFileSync(join(root, 'src/cli/added.ts'), '');
    utimesSync(join(root, 'src/cli/added.ts'), 1_000, 1_000);
    expect(buildState(root)).toMatchObject({ current: false, reason: 'src/cli changed after the last build' });
    rmSync(join(root, 'src/cli/added.ts'));
    utimesSync(join(root, 'src/cli'), 1_000, 1_000);
    at('packages/client/src/index.ts', 3_000);
    expect(buildState(root)).toEqual({
      current: false,
      reason: 'packages/client/src/index.ts changed after the last build',
    });
  });
});
