import { describe, expect, it } from 'vitest';
import type { LedgerEntryRecord } from '../../src/domain/records.ts';
import type { WorkerClaim } from '../../src/domain/queries.ts';
import type { Store } from '../../src/store/store.ts';
import { backends, useSharedStore, withFreshStore } from './store-backends.ts';
import { at, ledgerEntry, seedTurn, uid } from './store-fixtures.ts';

/**
 * Worker leases in the store (docs/tool-workers.md), on every backend: claims take only free
 * worker calls of the named tools, oldest first; concurrent claims never share a call (SKIP LOCKED
 * on PostgreSQL); renewals, releases and results need the live token; lapsed leases are listed.
 */

const worker = { attempts: 0, maxAttempts: 2, lease: null };

function claimOf(appId: string, overrides: Partial<WorkerClaim> = {}): WorkerClaim {
  return {
    appId,
    tools: ['get_weather'],
    limit: 10,
    now: at(100),
    expiresAt: at(130),
    holder: 'w1',
    keyId: 'key_w1',
    newToken: () => uid('lease'),
    ...overrides,
  };
}

async function seedWorkerCalls(store: Store, count: number, overrides: Partial<LedgerEntryRecord> = {}) {
  const { app, agent, turn } = await seedTurn(store);
  const entries = Array.from({ length: count }, (_, index) =>
    ledgerEntry(turn, agent.name, { callIndex: index, createdAt: at(10 + index), worker, ...overrides }),
  );
  await store.ledger.insert(entries);
  return { app, agent, turn, entries };
}

describe.each(backends)('worker leases ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('claims free worker calls of the named tools, oldest first, each under its own lease', async () => {
    const { app, agent, turn, entries } = await seedWorkerCalls(store(), 3);
    // Not offered: a client call, another tool's worker call, an answered worker call.
    await store().ledger.insert([
      ledgerEntry(turn, agent.name, { createdAt: at(1) }),
      ledgerEntry(turn, agent.name, { createdAt: at(2), toolName: 'other_tool', worker }),
      ledgerEntry(turn, agent.name, { createdAt: at(3), worker, state: 'completed', result: [] }),
    ]);
    const claimed = await store().transaction((tx) => tx.ledger.claim(claimOf(app.id, { limit: 2 })));
    expect(claimed.map((entry) => entry.id)).toEqual([entries[0]!.id, entries[1]!.id]);
    expect(claimed[0]!.worker).toEqual({
      attempts: 1,
      maxAttempts: 2,
      lease: {
        token: expect.stringMatching(/^lease_/),
        holder: 'w1',
        keyId: 'key_w1',
        claimedAt: at(100),
        expiresAt: at(130),
      },
    });
    expect(claimed[0]!.worker?.lease?.token).not.toBe(claimed[1]!.worker?.lease?.token);
    // Held calls are not offered again; the third is.
    const next = await store().transaction((tx) => tx.ledger.claim(claimOf(app.id)));
    expect(next.map((entry) => entry.id)).toEqual([entries[2]!.id]);
    expect(await store().transaction((tx) => tx.ledger.claim(claimOf(app.id)))).toEqual([]);
    // Another app's claim sees none of them.
    expect(await store().transaction((tx) => tx.ledger.claim(claimOf(uid('app'))))).toEqual([]);
    // Filtered by agent.
    expect(
      await store().transaction((tx) => tx.ledger.claim(claimOf(app.id, { agents: ['nobody'], now: at(200) }))),
    ).toEqual([]);
  });

  it('renews, releases and resolves only with the live token; a lapsed lease frees the call', async () => {
    const { app, entries } = await seedWorkerCalls(store(), 1);
    const id = entries[0]!.id;
    const [held] = await store().transaction((tx) => tx.ledger.claim(claimOf(app.id)));
    const token = held!.worker!.lease!.token;
    expect(await store().ledger.renewLease(app.id, id, 'lease_other', at(110), at(160))).toBeUndefined();
    expect((await store().ledger.renewLease(app.id, id, token, at(110), at(160)))?.worker?.lease?.expiresAt).toBe(
      at(160),
    );
    const resolution = {
      state: 'completed' as const,
      result: [{ type: 'text' as const, text: 'ok' }],
      isError: false,
      submittedBy: 'key_w1',
      submittedAt: at(120),
      idempotencyKey: null,
    };
    // Nobody without the token resolves it while the lease holds; the deadline sweep (no guard) could.
    expect(await store().ledger.resolve(id, resolution, { unleased: at(120) })).toBeUndefined();
    expect(await store().ledger.resolve(id, resolution, { lease: 'lease_other', now: at(120) })).toBeUndefined();

    // The lease lapses: listed, and the call goes to the next claim (a second attempt).
    expect((await store().ledger.listLapsedLeases(at(161), 100)).map((entry) => entry.id)).toContain(id);
    expect(await store().ledger.renewLease(app.id, id, token, at(161), at(200))).toBeUndefined();
    const [again] = await store().transaction((tx) =>
      tx.ledger.claim(claimOf(app.id, { now: at(161), expiresAt: at(190) })),
    );
    expect(again?.worker?.attempts).toBe(2);
    expect(await store().ledger.resolve(id, resolution, { lease: token, now: at(170) })).toBeUndefined();
    const newToken = again!.worker!.lease!.token;
    // Released: waiting again, the claim uncounted; a release needs the live token too.
    expect(await store().ledger.releaseLease(app.id, id, token, at(170))).toBeUndefined();
    const released = await store().ledger.releaseLease(app.id, id, newToken, at(170));
    expect(released?.worker).toEqual({ attempts: 1, maxAttempts: 2, lease: null });
    const [third] = await store().transaction((tx) =>
      tx.ledger.claim(claimOf(app.id, { now: at(171), expiresAt: at(200) })),
    );
    const resolved = await store().ledger.resolve(id, resolution, { lease: third!.worker!.lease!.token, now: at(180) });
    expect(resolved?.state).toBe('completed');
  });

  it('gives a call whose attempts are spent to no worker, and clears a lapsed lease only once', async () => {
    const { app, entries } = await seedWorkerCalls(store(), 1, {
      worker: { attempts: 0, maxAttempts: 1, lease: null },
    });
    const [held] = await store().transaction((tx) => tx.ledger.claim(claimOf(app.id)));
    expect(await store().transaction((tx) => tx.ledger.claim(claimOf(app.id, { now: at(500) })))).toEqual([]);
    expect(await store().ledger.clearLapsedLease(app.id, entries[0]!.id, held!.worker!.lease!.token)).toBe(true);
    expect(await store().ledger.clearLapsedLease(app.id, entries[0]!.id, held!.worker!.lease!.token)).toBe(false);
    expect(await store().ledger.hasWorkerCalls(app.id, 'get_weather')).toBe(true);
    expect(await store().ledger.hasWorkerCalls(app.id, 'other')).toBe(false);
  });

  it('never hands one call to two concurrent claims', async () => {
    await withFreshStore(backend, async (fresh) => {
      const { app } = await seedWorkerCalls(fresh, 40);
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          fresh.transaction((tx) => tx.ledger.claim(claimOf(app.id, { limit: 7, holder: `w${index}` }))),
        ),
      );
      // A claim may skip rows another one has locked: what is left goes to the next claim.
      const rest = await fresh.transaction((tx) => tx.ledger.claim(claimOf(app.id, { limit: 100 })));
      const ids = [...claims.flat(), ...rest].map((entry) => entry.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(40);
    });
  });
});
