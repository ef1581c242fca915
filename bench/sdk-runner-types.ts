import type { Percentiles } from './load.ts';
import type { InProcessResult } from './sdk-runner-in-process.ts';

/** The shapes of the SDK-runner phase's results (bench/sdk-runner.ts). */

export const VARIANTS = ['handHttp', 'handFetch', 'handFetchKeys', 'sdk'] as const;
export type Variant = (typeof VARIANTS)[number];
export const LABELS: Record<Variant, string> = {
  handHttp: 'hand-written, node:http (baseline)',
  handFetch: 'hand-written, fetch',
  handFetchKeys: 'hand-written, fetch + idempotency keys',
  sdk: 'SDK threads.run (fetch)',
};

export interface SdkRunnerOptions {
  levels: number[];
  warmupMs: number;
  /** Measured time per variant and level, cut into `slices` alternating slices. */
  durationMs: number;
  slices: number;
  /** Sequential samples of each variant, interleaved in rotating order. */
  samples: number;
  /** Round trips per block in the in-process test (10 blocks per variant). */
  inProcessRuns: number;
  /** Where to write CPU profiles of this process (the client side); null: no profiles. */
  profileDir: string | null;
  log(message: string): void;
}

export interface VariantLoad {
  variant: Variant;
  clients: number;
  seconds: number;
  roundTrips: number;
  roundTripsPerSecond: number;
  roundTrip: Percentiles;
  errors: number;
  firstError: string | null;
  /** CPU in cores (1.00 = one core busy) of Baton's process and of this one during the slices. */
  serverCpuCores: number | null;
  loadCpuCores: number;
  /** CPU per round trip, ms: Baton's, and this process's (the client side: transport + runner). */
  serverCpuMsPerRoundTrip: number;
  clientCpuMsPerRoundTrip: number;
}

export interface Step {
  /** Throughput of the later variant over the earlier one. */
  throughput: number;
  addedP50Ms: number;
  addedP99Ms: number;
  addedClientCpuMs: number;
  addedServerCpuMs: number;
}

export interface SdkRunnerLevel {
  clients: number;
  variants: Record<Variant, VariantLoad>;
  /** sdk against handHttp: the headline (SDK/baseline throughput, added p50 per round trip). */
  sdkToBaseline: Step;
  /** The same difference in three steps: fetch vs node:http, keys vs none, runner vs hand-written. */
  transport: Step;
  idempotencyKeys: Step;
  runner: Step;
  threadsCreated: number;
  poolWraps: number;
}

export interface KeyDerivation {
  hash: 'webCrypto' | 'sdkJsSha256' | 'nodeCrypto';
  gapMs: number;
  calls: number;
  /** Medians per key, µs (CPU of the whole process, so the libuv thread pool's work counts). */
  cpuUs: number;
  wallUs: number;
}

export interface SequentialVariant {
  latency: Percentiles;
  /** CPU of this process per round trip (process.cpuUsage around it), ms. */
  clientCpu: Percentiles;
}

export interface SdkRunnerResult {
  method: string;
  turnsPerThread: number;
  slices: number;
  /** The answer every round trip must end with (from a hand-written round trip at setup). */
  expectedAnswer: string;
  /** One SDK round trip through a counting fetch: its requests and whether each carried a key. */
  sdkRequests: Array<{ method: string; path: string; idempotencyKey: boolean }>;
  levels: SdkRunnerLevel[];
  sequential: {
    samples: number;
    variants: Record<Variant, SequentialVariant>;
    sdkMinusBaselineMs: number;
    runnerMs: number;
    transportMs: number;
    idempotencyKeysMs: number;
    runnerClientCpuMs: number;
  };
  /** One results key, three ways, back to back and after an idle gap (see measureKeyDerivation). */
  keyDerivation: KeyDerivation[];
  inProcess: InProcessResult;
  profiles: Array<{
    variant: Variant;
    file: string;
    clients: number;
    clientCpuMsPerRoundTrip: number;
    byGroup: Array<{ name: string; msPerRoundTrip: number }>;
  }>;
  /** Baton's SQLite work per round trip without and with idempotency keys (separate windows). */
  sql: Array<{
    variant: Variant;
    statementsPerRoundTrip: number;
    commitsPerRoundTrip: number;
    sqliteMsPerRoundTrip: number;
    idempotencyStatements: Array<{ sql: string; perRoundTrip: number; meanUs: number }>;
  }>;
}
