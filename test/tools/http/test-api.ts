import { expect } from 'vitest';
import { EgressError } from '../../../src/tools/http/egress-error.ts';
import { startServer, type LocalServer } from './local-servers.ts';

/** What /huge managed to write before the client hung up. */
export interface HugeStats {
  bytesWritten: number;
  closed: Promise<void>;
}

const HUGE_CHUNK = Buffer.alloc(64 * 1024, 0x61);

/**
 * The API the safeFetch tests call: /hello, /echo-headers, /chain (3 redirects, then `to`),
 * /redirect?status&to, /loop, /slow-headers, /slow-body, /huge (endless), /exact (1000 bytes).
 */
export async function startTestApi(): Promise<{ api: LocalServer; huge: HugeStats }> {
  const huge: HugeStats = { bytesWritten: 0, closed: Promise.resolve() };
  const api = await startServer((req, res, self) => {
    const url = new URL(req.url ?? '/', self.origin);
    switch (url.pathname) {
      case '/hello':
        res.setHeader('content-type', 'text/plain');
        res.end('hello');
        return;
      case '/echo-headers':
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(req.headers));
        return;
      case '/chain': {
        const step = Number(url.searchParams.get('step') ?? '0');
        const target = url.searchParams.get('to') ?? '/hello';
        res.writeHead(302, {
          location: step < 2 ? `/chain?step=${step + 1}&to=${encodeURIComponent(target)}` : target,
        });
        res.end();
        return;
      }
      case '/redirect':
        res.writeHead(Number(url.searchParams.get('status') ?? '302'), { location: url.searchParams.get('to') ?? '/' });
        res.end();
        return;
      case '/loop':
        res.writeHead(302, { location: '/loop' });
        res.end();
        return;
      case '/slow-headers':
        setTimeout(() => res.end('late'), 5_000).unref();
        return;
      case '/slow-body':
        res.writeHead(200);
        res.write('start');
        setTimeout(() => res.end('end'), 5_000).unref();
        return;
      case '/huge': {
        // An endless body written with backpressure, counting what the socket accepted.
        huge.bytesWritten = 0;
        huge.closed = new Promise((resolve) => res.on('close', () => resolve()));
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const pump = (): void => {
          while (!res.destroyed) {
            huge.bytesWritten += HUGE_CHUNK.length;
            if (!res.write(HUGE_CHUNK)) return void res.once('drain', pump);
          }
        };
        pump();
        return;
      }
      case '/exact':
        res.end(Buffer.alloc(1000, 0x62));
        return;
      default:
        res.statusCode = 404;
        res.end('not found');
    }
  });
  return { api, huge };
}

/** Awaits a promise that must reject with an EgressError, and returns the error. */
export async function egressFailure(promise: Promise<unknown>): Promise<EgressError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EgressError);
  return error as EgressError;
}
