import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { Baton, derivedIdempotencyKey } from '@baton/client';
import { ADMIN_KEY } from '../test/helpers/test-baton.ts';
import { APPROVAL } from './engine-driver.ts';
import { percentiles } from './load.ts';
import { sha256Bytes } from '../packages/client/src/http/sha256.ts';
import { summariseProfile } from './profile-summary.ts';
import type { KeyDerivation } from './sdk-runner-types.ts';
import { REPO_ROOT, type FetchFn, fetchRoundTrip, sdkRoundTrip } from './sdk-runner-round-trips.ts';

/**
 * The SDK-runner phase's measurements without network or server: the runner over a stub fetch,
 * and what deriving one results key costs with each SHA-256 at hand.
 */

export interface InProcessResult {
  /** Runs per variant in each block, and blocks per variant (alternating, rotating order). */
  runsPerBlock: number;
  blocks: number;
  /** Medians over the blocks of CPU and wall time per round trip, µs. */
  cpuUs: Record<InProcessVariant, number>;
  wallUs: Record<InProcessVariant, number>;
  /** The runner's own CPU per round trip: sdk − hand-written with keys, µs. */
  runnerUs: number;
  /**
   * From a profiled block of each: self CPU per round trip by group (profile share × the
   * unprofiled median CPU per round trip), hand-written with keys beside the SDK, µs; sorted by
   * what the SDK adds. `cpuUsPerRun` is the profiled blocks' own (the sampler adds to it).
   */
  profile: {
    files: string[];
    cpuUsPerRun: { handFetchKeys: number; sdk: number };
    byGroup: Array<{ name: string; handUs: number; sdkUs: number }>;
  } | null;
}
export type InProcessVariant = 'handFetch' | 'handFetchKeys' | 'sdk';

/** Where in-process CPU goes, by the file of the frame (or of a native frame's JavaScript caller). */
export function inProcessGroup(where: string, name: string): string {
  if (name === '(garbage collector)') return '(gc)';
  if (/crypto/.test(where)) return 'crypto (keys: Web Crypto digest, randomUUID)';
  if (where.includes('abort_controller')) return 'AbortController / AbortSignal';
  if (where.includes('js_transferable')) return 'makeTransferable (of AbortSignals and web streams)';
  if (/node:timers|internal\/timers/.test(where)) return 'timers';
  if (/undici|webstreams|encoding/.test(where)) return 'Response body (undici, web streams)';
  if (where.includes('packages/client/')) return '@baton/client code (incl. JSON)';
  if (where.includes('/bench/') || where.startsWith('bench/')) return 'bench (stub fetch, checks)';
  return 'other (node internals, V8)';
}

/**
 * The runner's own cost without network or server: the SDK and the hand-written loop over a stub
 * fetch that answers each request with a fresh Response holding the body Baton sent at setup.
 * What remains is the client-side work: building requests, handlers, the results key, parsing.
 */
export async function measureInProcess(
  replies: { paused: string; final: string },
  expected: string,
  runsPerBlock: number,
  blocks: number,
  profileDir: string | null,
): Promise<InProcessResult> {
  const headers = { 'content-type': 'application/json; charset=utf-8' };
  const stub: FetchFn = async (_input, init) =>
    new Response(String(init.body).includes('"tool_result"') ? replies.final : replies.paused, {
      status: 200,
      headers,
    });
  const baton = new Baton({ baseURL: 'http://127.0.0.1:9', apiKey: ADMIN_KEY, fetch: stub });
  const variants: Record<InProcessVariant, () => Promise<void>> = {
    handFetch: () => fetchRoundTrip('http://127.0.0.1:9', 'thread', false, expected, stub),
    handFetchKeys: () => fetchRoundTrip('http://127.0.0.1:9', 'thread', true, expected, stub),
    sdk: () => sdkRoundTrip(baton, 'thread', expected),
  };
  const names = Object.keys(variants) as InProcessVariant[];
  const block = async (run: () => Promise<void>, runs: number) => {
    const cpu = process.cpuUsage();
    const began = performance.now();
    for (let i = 0; i < runs; i++) await run();
    const used = process.cpuUsage(cpu);
    return { cpuUs: (used.user + used.system) / runs, wallUs: ((performance.now() - began) * 1000) / runs };
  };
  for (const name of names) await block(variants[name], runsPerBlock);
  const cpu = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<InProcessVariant, number[]>;
  const wall = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<InProcessVariant, number[]>;
  for (let b = 0; b < blocks; b++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(b + k) % names.length]!;
      const measured = await block(variants[name], runsPerBlock);
      cpu[name].push(measured.cpuUs);
      wall[name].push(measured.wallUs);
    }
  }
  const medians = (values: Record<InProcessVariant, number[]>) =>
    Object.fromEntries(names.map((name) => [name, percentiles(values[name]).p50])) as Record<InProcessVariant, number>;
  const cpuUs = medians(cpu);
  let profile: InProcessResult['profile'] = null;
  if (profileDir) {
    // Self time by group, for the hand-written loop with keys and for the SDK: the difference is the runner's.
    const groups = new Map<string, { hand: number; sdk: number }>();
    const files: string[] = [];
    const cpuUsPerRun = { handFetchKeys: NaN, sdk: NaN };
    for (const name of ['handFetchKeys', 'sdk'] as const) {
      const session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 250 });
      await session.post('Profiler.start');
      const measured = await block(variants[name], runsPerBlock * 2);
      const { profile: data } = await session.post('Profiler.stop');
      session.disconnect();
      const file = join(profileDir, `client-in-process-${name}.cpuprofile`);
      writeFileSync(file, JSON.stringify(data));
      files.push(file.startsWith(REPO_ROOT) ? file.slice(REPO_ROOT.length) : file);
      cpuUsPerRun[name] = measured.cpuUs;
      // Shares × the unprofiled CPU per run: the sampler's own cost is spread over the shares.
      for (const line of summariseProfile(file, 100_000).selfTop) {
        const group = groups.get(inProcessGroup(line.where, line.name)) ?? { hand: 0, sdk: 0 };
        group[name === 'sdk' ? 'sdk' : 'hand'] += (line.selfPct / 100) * cpuUs[name];
        groups.set(inProcessGroup(line.where, line.name), group);
      }
    }
    profile = {
      files,
      cpuUsPerRun,
      byGroup: [...groups.entries()]
        .map(([name, us]) => ({ name, handUs: us.hand, sdkUs: us.sdk }))
        .sort((a, b) => b.sdkUs - b.handUs - (a.sdkUs - a.handUs)),
    };
  }
  return { runsPerBlock, blocks, cpuUs, wallUs: medians(wall), runnerUs: cpuUs.sdk - cpuUs.handFetchKeys, profile };
}

/**
 * CPU and wall time of one results key (the text the SDK hashes for one call), medians: back to
 * back, and after 2 ms idle as in a run (where the key follows a wait on the network). Web Crypto
 * is what the SDK uses when it exists (packages/client/src/http/idempotency-key.ts); its own JS
 * sha256 (http/sha256.ts) is its fallback; node:crypto for comparison.
 */
export async function measureKeyDerivation(calls: number): Promise<KeyDerivation[]> {
  const payload = JSON.stringify([['call_0123456789abcdefghijklmn', APPROVAL, false]]);
  const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  const hashes: Record<KeyDerivation['hash'], (i: number) => Promise<string>> = {
    webCrypto: (i) => derivedIdempotencyKey('threads-results', [`call_${i}`], payload),
    sdkJsSha256: async (i) =>
      `baton-threads-results-${hex(sha256Bytes(new TextEncoder().encode(`call_${i}\n${payload}`)))}`,
    nodeCrypto: async (i) =>
      `baton-threads-results-${createHash('sha256').update(`call_${i}\n${payload}`).digest('hex')}`,
  };
  const results: KeyDerivation[] = [];
  for (const gapMs of [0, 2]) {
    for (const hash of Object.keys(hashes) as Array<KeyDerivation['hash']>) {
      const cpu: number[] = [];
      const wall: number[] = [];
      for (let i = 0; i < 100; i++) await hashes[hash](i);
      for (let i = 0; i < calls; i++) {
        if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
        const usage = process.cpuUsage();
        const began = performance.now();
        await hashes[hash](i);
        wall.push((performance.now() - began) * 1000);
        const used = process.cpuUsage(usage);
        cpu.push(used.user + used.system);
      }
      results.push({ hash, gapMs, calls, cpuUs: percentiles(cpu).p50, wallUs: percentiles(wall).p50 });
    }
  }
  return results;
}
