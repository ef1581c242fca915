import { describe, expect, it } from 'vitest';
import { DuplicateKeyError } from '../../src/store/store.ts';
import { backends, useSharedStore } from './store-backends.ts';
import { at, ledgerEntry, seedTurn } from './store-fixtures.ts';

describe.each(backends)('server call claims ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('keeps a claim with its whole ledger row until its turn releases them', async () => {
    const { agent, turn } = await seedTurn(store());
    const other = await seedTurn(store());
    const first = ledgerEntry(turn, agent.name, { kind: 'server', toolName: 'getStock', callIndex: 0 });
    const second = ledgerEntry(turn, agent.name, { kind: 'server', toolName: 'getPrice', callIndex: 1 });
    const elsewhere = ledgerEntry(other.turn, other.agent.name, { kind: 'server' });
    await store().serverClaims.claim(first, at(1));
    await store().serverClaims.claim(second, at(2));
    await store().serverClaims.claim(elsewhere, at(1));

    expect(await store().serverClaims.listByTurn(turn.id)).toEqual([first, second]);
    await store().serverClaims.releaseTurn(turn.id);
    expect(await store().serverClaims.listByTurn(turn.id)).toEqual([]);
    expect(await store().serverClaims.listByTurn(other.turn.id)).toEqual([elsewhere]);
  });

  it('releases inside a transaction, with the step that commits the results', async () => {
    const { agent, turn } = await seedTurn(store());
    await store().serverClaims.claim(ledgerEntry(turn, agent.name, { kind: 'server' }), at(1));
    await expect(
      store().transaction(async (tx) => {
        await tx.serverClaims.releaseTurn(turn.id);
        throw new Error('the step did not commit');
      }),
    ).rejects.toThrow('the step did not commit');
    expect(await store().serverClaims.listByTurn(turn.id)).toHaveLength(1);
  });

  it('lets one process claim a call; renewals keep it fresh, and stale ones are listed until released', async () => {
    const { agent, turn } = await seedTurn(store());
    const entry = ledgerEntry(turn, agent.name, { kind: 'approval' });
    await store().serverClaims.claim(entry, at(1));
    await expect(store().serverClaims.claim(entry, at(2))).rejects.toBeInstanceOf(DuplicateKeyError);

    const stale = async (before: string) =>
      (await store().serverClaims.listStale(before, 100)).filter((claimed) => claimed.id === entry.id);
    expect(await stale(at(5))).toEqual([entry]);
    await store().serverClaims.renew(entry.id, at(10));
    expect(await stale(at(5))).toEqual([]);
    expect(await stale(at(11))).toEqual([entry]);
    await store().serverClaims.release(entry.id);
    expect(await stale(at(11))).toEqual([]);
  });
});
