import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyExpiry } from '../../src/server/idempotency-expiry.ts';
import { ManualClock, type TestBaton } from '../helpers/test-baton.ts';
import { rowsMentioning, tableReadingBackends, type Tables } from './table-reading-backends.ts';

/**
 * Idempotency-Keys tied to the conversations their responses name (migration 0015), on SQLite and
 * PostgreSQL: a key whose only tie to a thread is its stored response (the POST that created the
 * thread: no turn carries the key) goes when the thread is deleted, and another thread's key stays.
 * And keys expire: after `server.idempotency_key_ttl_hours` a request sent again with its key is
 * a new request and runs again.
 */

const backends = await tableReadingBackends('baton-idempotency-links');

interface Link {
  app_id: string;
  key: string;
  conversation_id: string;
}

describe.each(backends)('idempotency key links on $name', (backend) => {
  let server: TestBaton;
  let tables: () => Promise<Tables>;
  let close: () => Promise<void>;
  // Keys are stamped with the real time: the clock starts there, and tests move it past the TTL.
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    ({ server, tables, close } = await backend.start(clock));
  }, 60_000);
  afterAll(async () => close?.());

  const links = async (): Promise<Link[]> =>
    ((await tables()).idempotency_key_conversations ?? []) as unknown as Link[];
  const keys = async (): Promise<string[]> =>
    ((await tables()).idempotency_keys as { key: string }[]).map((row) => row.key);

  async function keyedThread(key: string): Promise<string> {
    const created = await server.request('POST', '/v1/threads', { agent: 'refund-desk' }, { 'idempotency-key': key });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return created.body.id as string;
  }

  it("deleting a thread deletes the key of the POST that created it (tied by its response only), not another thread's", async () => {
    const doomed = await keyedThread('create-doomed');
    const kept = await keyedThread('create-kept');
    const appId = server.baton.defaultAppId;
    expect(await links()).toEqual(
      expect.arrayContaining([
        { app_id: appId, key: 'create-doomed', conversation_id: doomed },
        { app_id: appId, key: 'create-kept', conversation_id: kept },
      ]),
    );
    // No turn started with the key: only the link ties it to the thread.
    const turns = (await tables()).turns as { request_key: string | null }[];
    expect(turns.map((turn) => turn.request_key)).not.toContain('create-doomed');

    expect((await server.request('DELETE', `/v1/threads/${doomed}`)).status).toBe(200);
    expect(await keys()).not.toContain('create-doomed');
    expect(await keys()).toContain('create-kept');
    expect(await links()).not.toContainEqual(expect.objectContaining({ key: 'create-doomed' }));
    expect(await links()).toContainEqual({ app_id: appId, key: 'create-kept', conversation_id: kept });
    expect(rowsMentioning(await tables(), [doomed])).toEqual([]);

    // The key is free again: the same request runs anew.
    const again = await server.request(
      'POST',
      '/v1/threads',
      { agent: 'refund-desk' },
      { 'idempotency-key': 'create-doomed' },
    );
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.id).not.toBe(doomed);
  });

  it('a key replays its response until it expires; then it is deleted with its links and the request runs again', async () => {
    const expiry = new IdempotencyExpiry(server.baton.store, clock, { ttlHours: 24, batch: 2 });
    const first = await keyedThread('expiring');
    const replayed = await server.request(
      'POST',
      '/v1/threads',
      { agent: 'refund-desk' },
      { 'idempotency-key': 'expiring' },
    );
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.id).toBe(first);

    clock.advance(23 * 3600);
    expect(await expiry.run()).toBe(0);
    expect(await keys()).toContain('expiring');

    clock.advance(2 * 3600);
    // Every key of this server so far, two per batch until one comes back short.
    const before = (await keys()).length;
    expect(await expiry.run()).toBe(before);
    expect(await keys()).toEqual([]);
    expect(await links()).toEqual([]);

    const rerun = await server.request(
      'POST',
      '/v1/threads',
      { agent: 'refund-desk' },
      { 'idempotency-key': 'expiring' },
    );
    expect(rerun.status).toBe(200);
    expect(rerun.headers.get('idempotent-replayed')).toBeNull();
    expect(rerun.body.id).not.toBe(first);
    // The thread the first request made is untouched: only the key went.
    expect((await server.request('GET', `/v1/threads/${first}`)).status).toBe(200);
  });
});
