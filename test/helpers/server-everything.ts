import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../reliability/baton-process.ts';

/** @modelcontextprotocol/server-everything in Streamable HTTP mode, started by a test. */
export interface Everything {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, then SIGKILL) and waits until it is gone. */
  stop(): Promise<void>;
}

/** Starts @modelcontextprotocol/server-everything in Streamable HTTP mode on `port` (a free one by default). */
export async function startEverything(port?: number): Promise<Everything> {
  const chosen = port ?? (await freePort());
  const child: ChildProcess = spawn(
    process.execPath,
    ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'streamableHttp'],
    {
      env: { ...process.env, PORT: String(chosen) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server-everything did not start within 20 s:\n${output}`)),
      20_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${chosen}/mcp`,
    port: chosen,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
