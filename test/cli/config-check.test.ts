import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, makeWorkspace, REPO_ROOT } from '../reliability/baton-process.ts';

/**
 * `baton config check` and `baton serve` as an operator runs them (real processes): the check lists
 * every problem and exits 1; the server refuses to start with the same list on stderr.
 */

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function baton(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 20_000): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  // Vitest's own settings are not the operator's; no baton.yaml of the repository is read either.
  for (const name of ['NODE_OPTIONS', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID', 'DATABASE_URL'])
    delete childEnv[name];
  if (env.BATON_CONFIG === undefined) delete childEnv.BATON_CONFIG;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: REPO_ROOT,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const BROKEN = `server:
  port: \${BATON_TEST_PORT}
engine:
  turn_lease_seconds: 100000
agents:
  - name: desk
    model: scripted:auto
  - name: other
    model: scripted:auto
  - name: third
    model: scripted:auto
    tools:
      - name: "not a name"
      - name: fine
        timeout_policy: later
`;

/** The problem lines of a report: each `  path: message (line N)`. */
const problemLines = (text: string) => text.split('\n').filter((line) => line.startsWith('  ') && line.includes(': '));

describe('baton config check', () => {
  const workspace = makeWorkspace('baton-config-check-');
  const broken = join(workspace.dir, 'broken.yaml');
  const valid = join(workspace.dir, 'valid.yaml');
  beforeAll(() => {
    writeFileSync(broken, BROKEN);
    writeFileSync(
      valid,
      'server:\n  port: ${BATON_TEST_PORT:-8181}\nproviders:\n  openai: { api_key: "${BATON_TEST_OPENAI_KEY}" }\n' +
        'agents:\n  - { name: desk, model: scripted:auto }\n',
    );
  });
  afterAll(() => workspace.remove());

  it('lists every problem of the file given, with its path and line, and exits 1', async () => {
    const run = await baton(['config', 'check', broken], { BATON_TEST_PORT: '70000' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`Invalid configuration in ${broken} (4 problems):`);
    expect(problemLines(run.stderr)).toEqual([
      '  server.port: must be at most 65535 (got 70000) (line 2)',
      '  engine.turn_lease_seconds: must be a number of seconds from 3 to 86400 (1 day) (line 4)',
      expect.stringMatching(/^ {2}agents\[2\]\.tools\[0\]\.name: Invalid tool name 'not a name': .* \(line 13\)$/),
      '  agents[2].tools[1].timeout_policy: must be one of error_result, fail, cancel (got "later") (line 15)',
    ]);
  });

  it('reads BATON_CONFIG when no file is given, and prints a short summary of a valid one', async () => {
    const run = await baton(['config', 'check'], { BATON_CONFIG: valid, BATON_TEST_PORT: '9191' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`OK: ${valid}`);
    expect(run.stdout).toMatch(/listens on +127\.0\.0\.1:9191/);
    expect(run.stdout).toMatch(/agents +desk \(scripted:auto\)/);
    expect(run.stdout).toContain('note: ${BATON_TEST_OPENAI_KEY} is not set');
  });

  it('the file given replaces BATON_CONFIG; a missing one is a problem', async () => {
    const given = await baton(['config', 'check', broken], { BATON_CONFIG: valid });
    expect(given.code).toBe(1);
    expect(given.stderr).toContain(broken);
    const missing = await baton(['config', 'check', join(workspace.dir, 'nowhere.yaml')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('BATON_CONFIG: points to');
  });
});

describe('baton serve with an invalid configuration', () => {
  const workspace = makeWorkspace('baton-serve-refusal-');
  const broken = join(workspace.dir, 'broken.yaml');
  beforeAll(() => writeFileSync(broken, BROKEN));
  afterAll(() => workspace.remove());

  it('refuses to start, naming on stderr every problem `config check` names', async () => {
    const port = await freePort();
    const env = {
      BATON_CONFIG: broken,
      BATON_TEST_PORT: '70000',
      BATON_DATA_DIR: workspace.dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
    };
    const [serve, check] = await Promise.all([baton(['serve'], env), baton(['config', 'check'], env)]);
    expect(serve.code).toBe(1);
    expect(serve.stdout).not.toContain('listening');
    expect(problemLines(serve.stderr)).toHaveLength(4);
    expect(problemLines(serve.stderr)).toEqual(problemLines(check.stderr));
    // Nothing listens on the port.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
