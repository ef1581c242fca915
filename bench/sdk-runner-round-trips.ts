import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Baton } from '@baton/client';
import { ADMIN_KEY } from '../test/helpers/test-baton.ts';
import { APPROVAL, SEED_TEXT } from './engine-driver.ts';
import { HttpClient } from './load.ts';

/** The four round trips the SDK-runner phase compares, and the closed loop that drives them (bench/sdk-runner.ts). */

export const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const TURNS_PER_THREAD = 10;
export const AUTH = `Bearer ${ADMIN_KEY}`;
export const SEED_BODY = JSON.stringify({ role: 'user', content: SEED_TEXT });
export const resultBody = (callId: string) =>
  JSON.stringify({ role: 'user', content: [{ type: 'tool_result', tool_call_id: callId, content: APPROVAL }] });

export class ThreadPool {
  private next = 0;
  wraps = 0;
  constructor(readonly ids: readonly string[]) {}
  take(): string {
    if (this.next >= this.ids.length) {
      this.next = 0;
      this.wraps += 1;
    }
    return this.ids[this.next++]!;
  }
}

/** Per client, the thread it is on; a new one from the pool every TURNS_PER_THREAD round trips. */
export class Rotation {
  private readonly slots: Array<{ id: string; turns: number } | undefined> = [];
  constructor(private readonly pool: ThreadPool) {}
  thread(client: number): string {
    let slot = this.slots[client];
    if (!slot || slot.turns >= TURNS_PER_THREAD) this.slots[client] = slot = { id: this.pool.take(), turns: 0 };
    slot.turns += 1;
    return slot.id;
  }
}

export type FetchFn = (input: string, init: RequestInit) => Promise<Response>;
export const globalFetch: FetchFn = (input, init) => fetch(input, init);

export async function fetchPost(
  fetchFn: FetchFn,
  url: string,
  body: string,
  key: string | undefined,
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { authorization: AUTH, 'content-type': 'application/json' };
  if (key !== undefined) {
    headers.accept = 'application/json';
    headers['idempotency-key'] = key;
  }
  const response = await fetchFn(url, { method: 'POST', headers, body });
  return { status: response.status, text: await response.text() };
}

/** The hand-written round trip over fetch (the global one but in the in-process test); with `keys`, both POSTs carry a random Idempotency-Key. */
export async function fetchRoundTrip(
  baseUrl: string,
  threadId: string,
  keys: boolean,
  expected: string,
  fetchFn: FetchFn = globalFetch,
): Promise<void> {
  const url = `${baseUrl}/v1/threads/${threadId}/messages`;
  const first = await fetchPost(fetchFn, url, SEED_BODY, keys ? `baton-${randomUUID()}` : undefined);
  if (first.status !== 200) throw new Error(`seed message answered ${first.status}: ${first.text.slice(0, 300)}`);
  const choice = JSON.parse(first.text).choices?.[0];
  const callId = choice?.message?.tool_calls?.[0]?.id;
  if (choice?.finish_reason !== 'tool_use' || typeof callId !== 'string')
    throw new Error(`expected tool_use: ${first.text.slice(0, 300)}`);
  const second = await fetchPost(fetchFn, url, resultBody(callId), keys ? `baton-${randomUUID()}` : undefined);
  if (second.status !== 200) throw new Error(`tool_result answered ${second.status}: ${second.text.slice(0, 300)}`);
  const last = JSON.parse(second.text).choices?.[0];
  if (last?.finish_reason !== 'stop' || last.message?.content !== expected)
    throw new Error(`expected the answer: ${second.text.slice(0, 300)}`);
}

export async function sdkRoundTrip(baton: Baton, threadId: string, expected: string): Promise<void> {
  const answer = await baton.threads.run(threadId, SEED_TEXT, { tools: { request_approval: () => APPROVAL } });
  if (answer.text !== expected || answer.rounds !== 1 || answer.toolCalls.length !== 1) {
    throw new Error(
      `SDK run ended otherwise: rounds ${answer.rounds}, ${answer.toolCalls.length} call(s), text ${JSON.stringify(answer.text).slice(0, 300)}`,
    );
  }
}

/** A hand-written round trip (node:http): its final answer, which every variant must reproduce, and Baton's two replies. */
export async function referenceRoundTrip(
  http: HttpClient,
  threadId: string,
): Promise<{ answer: string; paused: string; final: string }> {
  const first = await http.post(`/v1/threads/${threadId}/messages`, SEED_BODY);
  const callId = JSON.parse(first.text).choices?.[0]?.message?.tool_calls?.[0]?.id;
  if (typeof callId !== 'string') throw new Error(`expected a tool call: ${first.text.slice(0, 300)}`);
  const second = await http.post(`/v1/threads/${threadId}/messages`, resultBody(callId));
  const content = JSON.parse(second.text).choices?.[0]?.message?.content;
  if (typeof content !== 'string' || content === '')
    throw new Error(`expected an answer: ${second.text.slice(0, 300)}`);
  return { answer: content, paused: first.text, final: second.text };
}

// ---- measurement ---------------------------------------------------------------------------------

/** Linux: user+system CPU seconds of a process, from /proc (as bench/load.ts reads it). */
export async function processCpuSeconds(pid: number): Promise<number | null> {
  try {
    const { readFile } = await import('node:fs/promises');
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export interface Window {
  latencies: number[];
  errors: number;
  firstError: string | null;
  serverCpuSeconds: number | null;
  loadCpuSeconds: number;
}

/**
 * `clients` closed loops of `roundTrip` for `durationMs`; a round trip counts when it completes
 * inside the window. CPU of Baton and of this process is read at the window's edges.
 */
export async function closedLoop(
  clients: number,
  durationMs: number,
  roundTrip: (client: number) => Promise<void>,
  serverPid: number,
): Promise<Window> {
  const serverStart = await processCpuSeconds(serverPid);
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const end = start + durationMs;
  const edge = new Promise<{ server: number | null; load: NodeJS.CpuUsage }>((resolve) =>
    setTimeout(() => {
      const load = process.cpuUsage(cpuStart);
      void processCpuSeconds(serverPid).then((server) => resolve({ server, load }));
    }, durationMs),
  );
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  const loop = async (client: number) => {
    while (performance.now() < end) {
      const began = performance.now();
      try {
        await roundTrip(client);
      } catch (error) {
        errors += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
        if (errors > 100) throw new Error(`too many errors; first: ${firstError}`, { cause: error });
        continue;
      }
      const ended = performance.now();
      if (ended <= end) latencies.push(ended - began);
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, client) => loop(client)));
  const { server, load } = await edge;
  return {
    latencies,
    errors,
    firstError,
    serverCpuSeconds: server !== null && serverStart !== null ? server - serverStart : null,
    loadCpuSeconds: (load.user + load.system) / 1e6,
  };
}
