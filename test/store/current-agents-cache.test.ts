import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { AGENT_CACHE_TTL_MS } from '../../src/store/current-agents-cache.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestDatabase, postgresUnavailable } from '../helpers/postgres-database.ts';
import { backends, useSharedStore } from './store-backends.ts';
import { agentDefinition, agentRecord, appRecord, at } from './store-fixtures.ts';

/**
 * A conversation's current agent is read by every new turn; the store keeps it for a second. An
 * edit through the same store is seen at once, one through another process on the same database
 * within a second: by notice on PostgreSQL, by the cache's age on SQLite.
 */

const postgresMissing = (await postgresUnavailable()) !== null;

async function seedAgent(store: Store) {
  const app = appRecord();
  await store.apps.insert(app);
  const agent = agentRecord(app.id, 'support');
  await store.agents.insert(agent);
  return agent;
}

async function edit(store: Store, appId: string, instructions: string, version: number) {
  const updated = await store.agents.update(
    appId,
    'support',
    version,
    agentDefinition('support', { instructions }),
    at(version),
  );
  expect(updated?.definition.instructions).toBe(instructions);
}

async function within(check: () => Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

describe.each(backends)('the current agent of a conversation, cached ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('is seen edited and deleted at once through the same store', async () => {
    const agent = await seedAgent(store());
    expect((await store().agents.getById(agent.id))?.version).toBe(1);
    await edit(store(), agent.appId, 'v2', 1);
    expect(await store().agents.getById(agent.id)).toMatchObject({ version: 2, definition: { instructions: 'v2' } });
    expect(await store().agents.delete(agent.appId, 'support')).toBe(true);
    expect(await store().agents.getById(agent.id)).toBeUndefined();
  });
});

describe('an agent edited by another process on the same database', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('SQLite: is served from the cache until it ages out, then read again (within a second)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-agents-'));
    dirs.push(dir);
    const reader = await openStore({ kind: 'sqlite', filename: join(dir, 'baton.db') });
    const writer = await openStore({ kind: 'sqlite', filename: join(dir, 'baton.db') });
    try {
      const agent = await seedAgent(writer);
      expect((await reader.agents.getById(agent.id))?.version).toBe(1);
      await edit(writer, agent.appId, 'v2', 1);
      // No notice crosses SQLite processes: the reader keeps its copy, for less than a second.
      expect((await reader.agents.getById(agent.id))?.version).toBe(1);
      const waited = await within(async () => (await reader.agents.getById(agent.id))?.version === 2, 2_000);
      expect(waited).toBeLessThanOrEqual(AGENT_CACHE_TTL_MS + 100);
    } finally {
      await Promise.all([reader.close(), writer.close()]);
    }
  });

  it.skipIf(postgresMissing)('PostgreSQL: is seen by notice, well within a second', async () => {
    const database = await createTestDatabase('baton_agents_cache');
    const reader = await openStore({ kind: 'postgres', connectionString: database.url });
    const writer = await openStore({ kind: 'postgres', connectionString: database.url });
    try {
      const agent = await seedAgent(writer);
      expect((await reader.agents.getById(agent.id))?.version).toBe(1);
      await edit(writer, agent.appId, 'v2', 1);
      const waited = await within(async () => (await reader.agents.getById(agent.id))?.version === 2, 1_000);
      // The cache would keep it for a second; the notice drops it within milliseconds.
      expect(waited).toBeLessThan(AGENT_CACHE_TTL_MS / 2);
    } finally {
      await Promise.all([reader.close(), writer.close()]);
      await database.drop();
    }
  });
});
