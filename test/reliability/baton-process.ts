import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as stringifyYaml } from 'yaml';
import { DEMO_AGENT } from '../../src/server/config.ts';

/** The real `baton serve` (`npm start`) run as a child process, for tests that kill and restart it. */

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PROCESS_ADMIN_KEY = 'bk_reliability_admin_key_0123456789';
/** Every replica of a PostgreSQL deployment reads secrets with the same key. */
const TEST_SECRETS_KEY = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';

export interface JsonResponse {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** A free loopback port: bind port 0, read what the OS gave, release it. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('no port'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

/**
 * A data directory and a config file with only the demo agent, so no `baton.yaml` in the
 * working directory is ever picked up. `remove()` deletes both.
 */
export function makeWorkspace(prefix = 'baton-reliability-'): {
  dir: string;
  dataDir: string;
  configFile: string;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const dataDir = join(dir, 'data');
  const configFile = join(dir, 'baton.yaml');
  writeFileSync(configFile, stringifyYaml({ agents: [DEMO_AGENT] }));
  return { dir, dataDir, configFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export class BatonProcess {
  readonly url: string;
  private output = '';
  private exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    child.stdout?.on('data', (chunk: Buffer) => this.append(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.append(chunk));
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Starts `node --import tsx src/cli/main.ts serve` and waits until `/healthz` answers. */
  static async start(options: {
    dataDir: string;
    configFile: string;
    port?: number;
    timeoutMs?: number;
    /** PostgreSQL instead of SQLite in `dataDir` (with a fixed secrets key, as replicas share one). */
    databaseUrl?: string;
    /** More environment for the process (OTEL_* variables, say). */
    env?: Record<string, string>;
  }): Promise<BatonProcess> {
    const port = options.port ?? (await freePort());
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      BATON_DATA_DIR: options.dataDir,
      BATON_ADMIN_KEY: PROCESS_ADMIN_KEY,
      BATON_CONFIG: options.configFile,
      LOG_LEVEL: 'warn',
      ...options.env,
    };
    delete env.DATABASE_URL;
    if (options.databaseUrl !== undefined) {
      env.DATABASE_URL = options.databaseUrl;
      env.BATON_SECRETS_KEY = TEST_SECRETS_KEY;
    }
    // Vitest sets these for its own workers; the server must run as plain `npm start` would.
    delete env.NODE_OPTIONS;
    delete env.VITEST;
    delete env.VITEST_POOL_ID;
    delete env.VITEST_WORKER_ID;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const baton = new BatonProcess(child, port);
    try {
      await baton.waitHealthy(options.timeoutMs ?? 20_000);
    } catch (error) {
      await baton.kill();
      throw error;
    }
    return baton;
  }

  private append(chunk: Buffer): void {
    this.output = (this.output + chunk.toString('utf8')).slice(-20_000);
  }

  /** What the process printed, for failure messages. */
  get log(): string {
    return this.output;
  }

  /** How the process ended, once it has. */
  exit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.exited;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  private async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    void this.exited.then((value) => {
      exit = value;
    });
    for (;;) {
      if (exit)
        throw new Error(`baton serve exited (${JSON.stringify(exit)}) before /healthz answered:\n${this.output}`);
      try {
        const response = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(1_000) });
        if (response.ok) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline)
        throw new Error(`baton serve did not answer /healthz within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Hard crash: SIGKILL, no shutdown hook runs. Resolves once the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.running) return;
    this.child.kill(signal);
    await this.exited;
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonResponse> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${PROCESS_ADMIN_KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON.
    }
    return { status: response.status, body: parsed, text, headers: response.headers };
  }
}
