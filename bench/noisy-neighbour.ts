import { ADMIN_KEY } from '../test/helpers/test-baton.ts';
import { referenceChainDocument } from '../test/helpers/hostile-openapi.ts';
import { startServer } from './child-server.ts';
import { HttpClient, runLoad, type LoadResult } from './load.ts';
import { NOISY_PROGRAM_NAME } from './noisy-neighbour-program.ts';
import { fmt, loadRow, table } from './report.ts';
import { batonRoundTrip, createThreadsOverHttp } from './round-trips.ts';

/**
 * The noisy-neighbour phase of `npm run bench` (alone: `BENCH_ONLY=noisy-neighbour`): how much
 * one tenant doing its worst slows another app down. The victim is the default app's pause/resume
 * round trip (bench/round-trips.ts), measured idle, then while a second app ("noisy", its own API
 * key) keeps `SPINNERS` turns of a jsFunction that busy-loops until its timeout in flight and
 * posts a 5 KB OpenAPI document whose schemas expand to 10^14 `$ref`s in a loop, then idle again.
 * The figure is the victim's round-trip p99 under noise over its p99 idle before (target ≤ 2).
 *
 * Baton runs in a child process (bench/servers/baton-server.ts with BENCH_NOISY=1, which adds the
 * spinning program); the noise and the victim come from this process on separate connections, and
 * only the victim's requests are timed.
 */

const NOISY_APP = 'projects/default/locations/global/apps/noisy';
/** Turns of the looping tool the noisy tenant keeps in flight (more than the sandbox has workers). */
const SPINNERS = 4;
/** The looping tool's timeout: each turn holds a worker for most of it. */
const SPIN_TIMEOUT = '3s';
const TARGET_RATIO = 2;

export interface NoisyNeighbourOptions {
  levels: number[];
  warmupMs: number;
  durationMs: number;
  log(message: string): void;
}

export interface NoisyNeighbourLevel {
  clients: number;
  idle: LoadResult;
  noisy: LoadResult;
  idleAfter: LoadResult;
  /** Victim round-trip p99 under noise over idle (before). */
  p99Ratio: number;
  p50Ratio: number;
  /** What the noisy tenant got done during the noisy window and its warm-up. */
  noise: NoiseCounts;
}

export interface NoiseCounts {
  spinTurns: number;
  documentsRefused: number;
  /** Answers other than the expected ones (a spin turn's 200, a document's 400 too complex). */
  unexpected: number;
  firstUnexpected: string | null;
}

export interface NoisyNeighbourResult {
  target: number;
  spinners: number;
  spinTimeout: string;
  levels: NoisyNeighbourLevel[];
}

export async function measureNoisyNeighbour(options: NoisyNeighbourOptions): Promise<NoisyNeighbourResult> {
  const server = await startServer('baton-server.ts', { BENCH_NOISY: '1' });
  const victim = new HttpClient(server.url, { authorization: `Bearer ${ADMIN_KEY}` });
  const admin = new HttpClient(server.url, { authorization: `Bearer ${ADMIN_KEY}` });
  try {
    const created = await admin.post('/v1/apps', JSON.stringify({ name: 'noisy' }));
    if (created.status !== 201) throw new Error(`create app answered ${created.status}: ${created.text}`);
    const noisyKey = JSON.parse(created.text).api_key.key as string;
    const noisy = new HttpClient(server.url, { authorization: `Bearer ${noisyKey}` });
    try {
      await prepareNoisyTenant(noisy);
      const levels: NoisyNeighbourLevel[] = [];
      for (const clients of options.levels) {
        const threads = await createThreadsOverHttp(victim, clients);
        const load = () =>
          runLoad({
            clients,
            warmupMs: options.warmupMs,
            durationMs: options.durationMs,
            http: victim,
            roundTrip: (client) => batonRoundTrip(victim, threads[client]!),
            serverPid: server.pid,
          });
        options.log(`noisy neighbour, ${clients} client(s): idle`);
        const idle = await load();
        options.log(
          `noisy neighbour, ${clients} client(s): while app "noisy" spins ${SPINNERS} loops and posts hostile OpenAPI`,
        );
        const noise = startNoise(noisy);
        const noisyLoad = await load();
        const counts = await noise.stop();
        options.log(`noisy neighbour, ${clients} client(s): idle again`);
        const idleAfter = await load();
        levels.push({
          clients,
          idle,
          noisy: noisyLoad,
          idleAfter,
          p99Ratio: noisyLoad.roundTrip.p99 / idle.roundTrip.p99,
          p50Ratio: noisyLoad.roundTrip.p50 / idle.roundTrip.p50,
          noise: counts,
        });
      }
      return { target: TARGET_RATIO, spinners: SPINNERS, spinTimeout: SPIN_TIMEOUT, levels };
    } finally {
      noisy.close();
    }
  } finally {
    victim.close();
    admin.close();
    await server.stop();
  }
}

async function prepareNoisyTenant(noisy: HttpClient): Promise<void> {
  const tool = await noisy.post(
    `/v1/${NOISY_APP}/tools?toolId=spin`,
    JSON.stringify({
      timeout: SPIN_TIMEOUT,
      jsFunction: {
        name: 'spin',
        parameters: { type: 'OBJECT', properties: {} },
        jsCode: 'function spin() { for (;;) {} }',
      },
    }),
  );
  if (tool.status !== 200) throw new Error(`create tool answered ${tool.status}: ${tool.text}`);
  const agent = await noisy.post(
    `/v1/${NOISY_APP}/agents?agentId=spinner`,
    JSON.stringify({
      displayName: 'spinner',
      instruction: 'Spin.',
      modelSettings: { model: `scripted:${NOISY_PROGRAM_NAME}` },
      tools: [`${NOISY_APP}/tools/spin`],
    }),
  );
  if (agent.status !== 200) throw new Error(`create agent answered ${agent.status}: ${agent.text}`);
  // One of each before anything is measured: the worker threads start on first use (about a
  // second each), which is a cost of the first call after a start, not of the noise.
  const noise = startNoise(noisy, 1);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const warm = await noise.stop();
  if (warm.unexpected > 0) throw new Error(`the noisy tenant's warm-up failed: ${warm.firstUnexpected}`);
}

/** The noisy tenant at work until stopped: looping tool turns, and a hostile document in a loop. */
function startNoise(noisy: HttpClient, spinners = SPINNERS): { stop(): Promise<NoiseCounts> } {
  let running = true;
  const counts: NoiseCounts = { spinTurns: 0, documentsRefused: 0, unexpected: 0, firstUnexpected: null };
  const unexpected = (what: string) => {
    counts.unexpected += 1;
    counts.firstUnexpected ??= what.slice(0, 300);
  };
  const spinner = async () => {
    while (running) {
      const thread = await noisy.post('/v1/threads', JSON.stringify({ agent: 'spinner' }));
      if (thread.status !== 200) {
        unexpected(`thread ${thread.status}: ${thread.text}`);
        continue;
      }
      const turn = await noisy.post(
        `/v1/threads/${JSON.parse(thread.text).id}/messages`,
        JSON.stringify({ role: 'user', content: 'spin' }),
      );
      if (turn.status === 200) counts.spinTurns += 1;
      else unexpected(`spin turn ${turn.status}: ${turn.text}`);
    }
  };
  const document = referenceChainDocument(24, 4);
  const poster = async () => {
    for (let i = 0; running; i++) {
      const posted = await noisy.post(
        `/v1/${NOISY_APP}/toolsets?toolsetId=hostile-${i}`,
        JSON.stringify({ displayName: `hostile ${i}`, openApiToolset: { openApiSchema: document } }),
      );
      if (posted.status === 400 && posted.text.includes('OPENAPI_DOCUMENT_TOO_COMPLEX')) counts.documentsRefused += 1;
      else unexpected(`document ${posted.status}: ${posted.text}`);
    }
  };
  const workers = [...Array.from({ length: spinners }, spinner), poster()];
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
      return counts;
    },
  };
}

export function noisyNeighbourReport(result: NoisyNeighbourResult): string[] {
  const headers = ['victim (default app)', 'clients', 'rt/s', 'rt p50 ms', 'rt p99 ms', 'req p50 ms', 'req p99 ms'];
  const rows = result.levels.flatMap((level) => [
    loadRow('idle', level.idle).slice(0, 7),
    loadRow('noisy tenant at work', level.noisy).slice(0, 7),
    loadRow('idle again', level.idleAfter).slice(0, 7),
  ]);
  const lines = [
    '',
    `Noisy neighbour: app "noisy" keeps ${result.spinners} turns of a jsFunction looping until its ${result.spinTimeout} ` +
      'timeout in flight and posts a 5 KB OpenAPI document expanding to 10^14 $refs in a loop; the default app runs ' +
      'its pause/resume round trip.',
    table(headers, rows),
  ];
  for (const level of result.levels) {
    const { noise } = level;
    lines.push(
      `  ${level.clients} client(s): round-trip p99 noisy/idle ${fmt(level.p99Ratio, 2)} (p50 ${fmt(level.p50Ratio, 2)})   ` +
        `target ≤ ${result.target}: ${level.p99Ratio <= result.target ? 'met' : 'MISSED'}; noise: ${noise.spinTurns} ` +
        `looping turns, ${noise.documentsRefused} documents refused, ${noise.unexpected} unexpected answers` +
        (noise.firstUnexpected ? ` (first: ${noise.firstUnexpected})` : ''),
    );
  }
  return lines;
}
