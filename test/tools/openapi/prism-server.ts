/**
 * Starts Stoplight Prism (`prism mock`) on a free loopback port for a spec file and waits until it
 * listens. If Prism exits or stays silent, the promise rejects with Prism's own output, so a
 * broken mock fails the test loudly instead of skipping it.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

const PRISM = resolve(import.meta.dirname, '../../../node_modules/.bin/prism');
const START_TIMEOUT_MS = 25_000;

export interface PrismServer {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

export async function startPrism(specPath: string): Promise<PrismServer> {
  const port = await freePort();
  const child = spawn(PRISM, ['mock', '-h', '127.0.0.1', '-p', String(port), specPath], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`prism did not start within ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (error) => {
      clearTimeout(timer);
      fail(new Error(`prism could not be started: ${error.message}\n${output}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`prism exited (code ${code}, signal ${signal}) before listening:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
