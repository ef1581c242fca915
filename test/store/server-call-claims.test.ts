import { describe, expect, it } from 'vitest';
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
});
