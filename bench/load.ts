import { Agent, request as httpRequest } from 'node:http';

/**
 * A small closed-loop load generator on node:http with keep-alive sockets (no dependency, and
 * cheaper per request than fetch, so the client is not the bottleneck). Each client runs round
 * trips back to back; a round trip is whatever `roundTrip` does (one or more requests).
 */

export interface HttpResult {
  status: number;
  text: string;
}

export class HttpClient {
  private readonly agent: Agent;
  private readonly host: string;
  private readonly port: number;
  /** Per-request latencies (ms) of the current measurement window; null while warming up. */
  requestLatencies: number[] | null = null;

  constructor(
    baseUrl: string,
    private readonly headers: Record<string, string> = {},
  ) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.agent = new Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 });
  }

  post(path: string, body: string): Promise<HttpResult> {
    return this.send('POST', path, body);
  }

  get(path: string): Promise<HttpResult> {
    return this.send('GET', path, null);
  }

  private send(method: string, path: string, body: string | null): Promise<HttpResult> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const req = httpRequest(
        {
          host: this.host,
          port: this.port,
          path,
          method,
          agent: this.agent,
          headers:
            body === null
              ? this.headers
              : { ...this.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            this.requestLatencies?.push(performance.now() - started);
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body ?? undefined);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface Percentiles {
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

export function percentiles(samples: readonly number[]): Percentiles {
  if (samples.length === 0) return { p50: NaN, p99: NaN, mean: NaN, max: NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return {
    p50: at(0.5),
    p99: at(0.99),
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    max: sorted[sorted.length - 1]!,
  };
}

export interface LoadResult {
  clients: number;
  seconds: number;
  roundTrips: number;
  roundTripsPerSecond: number;
  /** Latency of a whole round trip, ms. */
  roundTrip: Percentiles;
  /** Latency of each single HTTP request, ms. */
  request: Percentiles;
  errors: number;
  firstError: string | null;
  /** CPU used by the server process during the window, in cores (1.0 = one core busy). */
  serverCpuCores: number | null;
  /** CPU used by this (load generator) process during the window, in cores. */
  loadCpuCores: number;
}

export type RoundTrip = (client: number) => Promise<void>;

/** Linux: user+system CPU seconds of a process, from /proc. */
async function processCpuSeconds(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
  try {
    const { readFile } = await import('node:fs/promises');
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the full line, 12 and 13 after the comm field.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * Opens `clients` keep-alive connections first (`connectPath`, fired concurrently), then runs
 * `clients` loops of `roundTrip`: `warmupMs` unmeasured, then `durationMs` measured. A round trip
 * counts when it completes inside the window; requests are timed while the window is open.
 * A client whose round trip throws `StopClient` stops early (e.g., no fresh thread left).
 *
 * Connections are opened up front because a Node server whose event loop is saturated admits
 * new connections slowly: with 50 clients connecting into a busy server the last ones waited
 * 2-5 s for their first response (also with a plain Fastify handler that burns CPU), which
 * would measure connection admission, not the request path.
 */
export async function runLoad(options: {
  clients: number;
  warmupMs: number;
  durationMs: number;
  http: HttpClient;
  roundTrip: RoundTrip;
  serverPid?: number;
  /** GET path used to open the connections before the clock starts (default /healthz). */
  connectPath?: string;
}): Promise<LoadResult> {
  const { clients, warmupMs, durationMs, http, roundTrip } = options;
  await Promise.all(Array.from({ length: clients }, () => http.get(options.connectPath ?? '/healthz')));
  const startedAt = performance.now();
  const windowStart = startedAt + warmupMs;
  const windowEnd = windowStart + durationMs;
  const roundTripLatencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  let cpuAtStart: NodeJS.CpuUsage | null = null;
  let serverCpuAtStart: number | null = null;
  const openWindow = setTimeout(() => {
    http.requestLatencies = [];
    cpuAtStart = process.cpuUsage();
    void processCpuSeconds(options.serverPid).then((seconds) => (serverCpuAtStart = seconds));
  }, warmupMs);

  const loop = async (client: number) => {
    while (performance.now() < windowEnd) {
      const began = performance.now();
      try {
        await roundTrip(client);
      } catch (error) {
        if (error instanceof StopClient) return;
        errors += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
        if (errors > 100) throw new Error(`too many errors; first: ${firstError}`, { cause: error });
        continue;
      }
      const ended = performance.now();
      // Throughput counts the round trips that complete inside the window.
      if (ended >= windowStart && ended <= windowEnd) roundTripLatencies.push(ended - began);
    }
  };
  const serverCpuEnd = new Promise<number | null>((resolve) =>
    setTimeout(() => void processCpuSeconds(options.serverPid).then(resolve), warmupMs + durationMs),
  );
  const cpuEnd = new Promise<NodeJS.CpuUsage>((resolve) =>
    setTimeout(() => resolve(process.cpuUsage(cpuAtStart ?? undefined)), warmupMs + durationMs),
  );
  await Promise.all(Array.from({ length: clients }, (_, client) => loop(client)));
  clearTimeout(openWindow);
  const requestLatencies = http.requestLatencies ?? [];
  http.requestLatencies = null;
  const [serverCpu, loadCpu] = await Promise.all([serverCpuEnd, cpuEnd]);
  const seconds = durationMs / 1000;
  return {
    clients,
    seconds,
    roundTrips: roundTripLatencies.length,
    roundTripsPerSecond: roundTripLatencies.length / seconds,
    roundTrip: percentiles(roundTripLatencies),
    request: percentiles(requestLatencies),
    errors,
    firstError,
    serverCpuCores: serverCpu !== null && serverCpuAtStart !== null ? (serverCpu - serverCpuAtStart) / seconds : null,
    loadCpuCores: (loadCpu.user + loadCpu.system) / 1e6 / seconds,
  };
}

/** Thrown by a round trip to end its client's loop without counting an error. */
export class StopClient extends Error {}
