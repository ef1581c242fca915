import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/domain/clock.ts';
import { newId } from '../../../src/domain/ids.ts';
import { AgentService } from '../../../src/resources/agents/agent-service.ts';
import { ensureDefaultApp } from '../../../src/resources/apps/app-records.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';

/**
 * Replicas starting together each write `baton.yaml`'s agents (`upsert`): the ones that lose the
 * race to create or to update read the agent again instead of failing their start.
 */
describe('agent upsert from config, several starters at once', () => {
  let store: Store | undefined;
  afterEach(async () => store?.close());

  it('creates the agent once and updates it once, every starter succeeding', async () => {
    store = await openStore({ kind: 'sqlite', filename: ':memory:' });
    const appId = await ensureDefaultApp(store);
    const starters = Array.from({ length: 5 }, () => new AgentService(store!, systemClock, newId, () => {}));
    const first = { name: 'desk', model: 'scripted:auto', instructions: 'Help.' };
    const created = await Promise.all(starters.map((service) => service.upsert(appId, first)));
    expect(new Set(created.map((agent) => `${agent.id}@${agent.version}`))).toEqual(new Set([`${created[0]!.id}@1`]));

    const second = { ...first, instructions: 'Help, briefly.' };
    const updated = await Promise.all(starters.map((service) => service.upsert(appId, second)));
    expect(updated.map((agent) => agent.version)).toEqual([2, 2, 2, 2, 2]);
    expect((await store.agents.get(appId, 'desk'))?.definition.instructions).toBe('Help, briefly.');
  });
});
