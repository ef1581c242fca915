import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatonError } from '../../src/domain/errors/baton-error.ts';
import { IdempotencyKeys, requestHash } from '../../src/server/idempotency.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';

/**
 * The Idempotency-Key hooks' leases, over a real store: a key whose owner died is taken over by
 * a retry of the same request once its lease ended; a live owner's lease is renewed, so a retry
 * never takes over a request that is still running, however long it runs.
 */

let store: Store;
let counter = 0;

beforeAll(async () => {
  store = await openStore({ kind: 'sqlite', filename: ':memory:' });
});

afterAll(async () => {
  await store.close();
});

/** A POST as the preHandler hook sees it. */
function post(key: string, body: unknown): FastifyRequest {
  return { method: 'POST', url: '/v1/threads/t1/messages', body, headers: { 'idempotency-key': key } } as never;
}

/** A reply that records what was sent. */
function recordingReply(): FastifyReply & { sent: { status: number; headers: Record<string, string>; body: unknown } } {
  const sent = { status: 200, headers: {} as Record<string, string>, body: undefined as unknown };
  const reply = {
    sent,
    code(status: number) {
      sent.status = status;
      return reply;
    },
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    async send(body: unknown) {
      sent.body = body;
      return reply;
    },
  };
  return reply as never;
}

function fresh(): { appId: string; key: string } {
  counter += 1;
  return { appId: `app_${counter}`, key: `key-${counter}` };
}

/** A key left in progress by a process that died, its lease ending `endsInMs` from now. */
async function abandoned(appId: string, key: string, body: unknown, endsInMs: number): Promise<void> {
  const now = Date.now();
  const reservation = await store.idempotency.reserve(appId, key, requestHash(post(key, body)), iso(now - 60_000), {
    owner: 'dead-process',
    expiresAt: iso(now + endsInMs),
  });
  expect(reservation).toEqual({ reserved: true, takenOver: false });
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

async function refusal(promise: Promise<unknown>): Promise<BatonError> {
  const error = await promise.then(
    () => expect.fail('expected a refusal'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BatonError);
  return error as BatonError;
}

describe('a key whose owner died', () => {
  it('is taken over by a retry of the same request once the lease ended, then replays its outcome', async () => {
    const { appId, key } = fresh();
    const body = { role: 'user', content: 'hello' };
    await abandoned(appId, key, body, -1_000);
    const keys = new IdempotencyKeys(store, { leaseMs: 30_000, owner: 'restarted-process' });

    const handle = await keys.begin(appId, post(key, body), recordingReply());
    expect(handle?.key).toBe(key);
    expect(await store.idempotency.get(appId, key)).toMatchObject({ state: 'in_progress', owner: 'restarted-process' });
    await handle?.complete(200, '{"ran":"again"}');

    const reply = recordingReply();
    expect(await keys.begin(appId, post(key, body), reply)).toBeNull();
    expect(reply.sent).toMatchObject({ status: 200, body: '{"ran":"again"}' });
    expect(reply.sent.headers['idempotent-replayed']).toBe('true');
  });

  it('is still refused to another request, lease or not', async () => {
    const { appId, key } = fresh();
    await abandoned(appId, key, { content: 'first' }, -1_000);
    const keys = new IdempotencyKeys(store, { leaseMs: 30_000, owner: 'restarted-process' });
    const error = await refusal(keys.begin(appId, post(key, { content: 'other' }), recordingReply()));
    expect(error.code).toBe('idempotency_key_reused');
    expect(await store.idempotency.get(appId, key)).toMatchObject({ owner: 'dead-process' });
  });

  it('is taken over by a retry that was waiting for it when the lease ends', async () => {
    const { appId, key } = fresh();
    const body = { content: 'slow' };
    await abandoned(appId, key, body, 300);
    const keys = new IdempotencyKeys(store, { leaseMs: 30_000, owner: 'restarted-process', waitForFirstMs: 60_000 });
    const handle = await keys.begin(appId, post(key, body), recordingReply());
    expect(handle?.key).toBe(key);
    expect(await store.idempotency.get(appId, key)).toMatchObject({ owner: 'restarted-process' });
    await handle?.release();
    expect(await store.idempotency.get(appId, key)).toBeUndefined();
  });

  it('answers 409 with Retry-After while the lease still runs', async () => {
    const { appId, key } = fresh();
    const body = { content: 'slow' };
    await abandoned(appId, key, body, 20_000);
    const keys = new IdempotencyKeys(store, { leaseMs: 30_000, owner: 'restarted-process', waitForFirstMs: 50 });
    const reply = recordingReply();
    const error = await refusal(keys.begin(appId, post(key, body), reply));
    expect(error.code).toBe('idempotency_key_in_use');
    expect(error.message).toContain("Idempotency-Key '");
    expect(error.message).toContain('after its lease ends');
    const seconds = Number(reply.sent.headers['retry-after']);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(20);
  });
});

describe('a key whose owner is alive', () => {
  it('keeps its lease renewed while the request runs past it, so a retry waits instead of taking over', async () => {
    const { appId, key } = fresh();
    const body = { content: 'long' };
    const owner = new IdempotencyKeys(store, { leaseMs: 1_500, owner: 'live-process' });
    const handle = await owner.begin(appId, post(key, body), recordingReply());
    const first = (await store.idempotency.get(appId, key))?.leaseExpiresAt ?? '';

    // Wait until the first lease is over: only renewals keep the key.
    while (Date.now() <= Date.parse(first) + 200) await new Promise((resolve) => setTimeout(resolve, 50));
    const row = await store.idempotency.get(appId, key);
    expect(row?.owner).toBe('live-process');
    expect((row?.leaseExpiresAt ?? '') > first).toBe(true);

    const retry = new IdempotencyKeys(store, { leaseMs: 1_500, owner: 'other-process', waitForFirstMs: 50 });
    expect((await refusal(retry.begin(appId, post(key, body), recordingReply()))).code).toBe('idempotency_key_in_use');

    // Settled: renewal stops, and the stored outcome answers the retry.
    await handle?.complete(201, '{"done":true}');
    const reply = recordingReply();
    expect(await retry.begin(appId, post(key, body), reply)).toBeNull();
    expect(reply.sent).toMatchObject({ status: 201, body: '{"done":true}' });
  });
});
