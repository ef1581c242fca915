import { describe, expect, it } from 'vitest';
import { InvalidCursorError } from '../../src/domain/invalid-cursor-error.ts';
import { DuplicateKeyError } from '../../src/store/store.ts';
import { backends, useSharedStore } from './store-backends.ts';
import { agentDefinition, agentRecord, appRecord, at } from './store-fixtures.ts';

describe.each(backends)('agents ($name)', (backend) => {
  const store = useSharedStore(backend);

  async function newApp(): Promise<string> {
    const app = appRecord();
    await store().apps.insert(app);
    return app.id;
  }

  it('inserts an agent with its first version row', async () => {
    const appId = await newApp();
    const agent = agentRecord(appId, 'support', {
      definition: agentDefinition('support', { temperature: 0.2, toolTimeoutSeconds: 60 }),
    });
    await store().agents.insert(agent);
    expect(await store().agents.get(appId, 'support')).toEqual(agent);
    expect(await store().agents.getById(agent.id)).toEqual(agent);
    expect(await store().agents.getVersion(agent.id, 1)).toEqual({
      agentId: agent.id,
      version: 1,
      definition: agent.definition,
      createdAt: agent.updatedAt,
    });
  });

  it('throws DuplicateKeyError for a second agent with the same name in the app', async () => {
    const appId = await newApp();
    await store().agents.insert(agentRecord(appId, 'support'));
    const duplicate = store().agents.insert(agentRecord(appId, 'support'));
    await expect(duplicate).rejects.toBeInstanceOf(DuplicateKeyError);
    await expect(store().agents.insert(agentRecord(appId, 'support'))).rejects.toThrow(/agents/);
  });

  it('allows the same name in another app, and scopes reads by app', async () => {
    const appA = await newApp();
    const appB = await newApp();
    const a = agentRecord(appA, 'support');
    const b = agentRecord(appB, 'support');
    await store().agents.insert(a);
    await store().agents.insert(b);
    expect((await store().agents.get(appA, 'support'))?.id).toBe(a.id);
    expect((await store().agents.get(appB, 'support'))?.id).toBe(b.id);
    expect(await store().agents.get(await newApp(), 'support')).toBeUndefined();
  });

  it('pages through agents by name with an opaque cursor', async () => {
    const appId = await newApp();
    for (const name of ['delta', 'alpha', 'echo', 'charlie', 'bravo']) {
      await store().agents.insert(agentRecord(appId, name));
    }
    const first = await store().agents.list(appId, { limit: 2 });
    expect(first.data.map((a) => a.name)).toEqual(['alpha', 'bravo']);
    expect(first.nextCursor).toEqual(expect.any(String));

    const second = await store().agents.list(appId, { limit: 2, cursor: first.nextCursor });
    expect(second.data.map((a) => a.name)).toEqual(['charlie', 'delta']);

    const third = await store().agents.list(appId, { limit: 2, cursor: second.nextCursor });
    expect(third.data.map((a) => a.name)).toEqual(['echo']);
    expect(third.nextCursor).toBeNull();
  });

  it('returns a null cursor when the last page is exactly full', async () => {
    const appId = await newApp();
    await store().agents.insert(agentRecord(appId, 'one'));
    await store().agents.insert(agentRecord(appId, 'two'));
    const page = await store().agents.list(appId, { limit: 2, cursor: null });
    expect(page.data).toHaveLength(2);
    expect(page.nextCursor).toBeNull();
    expect(await store().agents.list(await newApp(), { limit: 2 })).toEqual({ data: [], nextCursor: null });
  });

  it('rejects a page limit below 1', async () => {
    const appId = await newApp();
    await expect(store().agents.list(appId, { limit: 0 })).rejects.toThrow(RangeError);
  });

  it('rejects a malformed cursor with InvalidCursorError', async () => {
    const appId = await newApp();
    const bad = ['not a cursor!', 'eyJ4IjoxfQ', Buffer.from('[1,2]').toString('base64url'), 'zzzz'];
    for (const cursor of bad) {
      await expect(store().agents.list(appId, { limit: 2, cursor })).rejects.toThrow(InvalidCursorError);
    }
    await expect(store().agents.list(appId, { limit: 2, cursor: 'nope' })).rejects.toThrow(
      'Invalid cursor: pass the next_cursor value from a previous page',
    );
  });

  it('updates with the expected version, bumping the version and writing a version row', async () => {
    const appId = await newApp();
    const agent = agentRecord(appId, 'support');
    await store().agents.insert(agent);
    const definition = agentDefinition('support', { instructions: 'Be thorough.', maxSteps: 3 });

    const updated = await store().agents.update(appId, 'support', 1, definition, at(60));
    expect(updated).toEqual({ ...agent, version: 2, definition, updatedAt: at(60) });
    expect(await store().agents.get(appId, 'support')).toEqual(updated);

    expect((await store().agents.getVersion(agent.id, 1))?.definition).toEqual(agent.definition);
    expect(await store().agents.getVersion(agent.id, 2)).toEqual({
      agentId: agent.id,
      version: 2,
      definition,
      createdAt: at(60),
    });
  });

  it('refuses an update with a stale version and leaves the agent unchanged', async () => {
    const appId = await newApp();
    const agent = agentRecord(appId, 'support');
    await store().agents.insert(agent);
    await store().agents.update(appId, 'support', 1, agentDefinition('support', { instructions: 'v2' }), at(1));

    const stale = await store().agents.update(
      appId,
      'support',
      1,
      agentDefinition('support', { instructions: 'v3' }),
      at(2),
    );
    expect(stale).toBeUndefined();
    const current = await store().agents.get(appId, 'support');
    expect(current?.version).toBe(2);
    expect(current?.definition.instructions).toBe('v2');
    expect(await store().agents.getVersion(agent.id, 3)).toBeUndefined();
  });

  it('lets exactly one of two concurrent updates with the same version win', async () => {
    const appId = await newApp();
    const agent = agentRecord(appId, 'support');
    await store().agents.insert(agent);
    const results = await Promise.all([
      store().agents.update(appId, 'support', 1, agentDefinition('support', { instructions: 'A' }), at(1)),
      store().agents.update(appId, 'support', 1, agentDefinition('support', { instructions: 'B' }), at(1)),
    ]);
    const winners = results.filter((r) => r !== undefined);
    expect(winners).toHaveLength(1);
    expect((await store().agents.get(appId, 'support'))?.definition.instructions).toBe(
      winners[0]?.definition.instructions,
    );
  });

  it('returns undefined when updating an agent that does not exist in the app', async () => {
    const appId = await newApp();
    expect(await store().agents.update(appId, 'ghost', 1, agentDefinition('ghost'), at(1))).toBeUndefined();
  });

  it('deletes the agent but keeps its version rows', async () => {
    const appId = await newApp();
    const agent = agentRecord(appId, 'support');
    await store().agents.insert(agent);
    await store().agents.update(appId, 'support', 1, agentDefinition('support', { instructions: 'v2' }), at(1));

    expect(await store().agents.delete(await newApp(), 'support')).toBe(false);
    expect(await store().agents.delete(appId, 'support')).toBe(true);
    expect(await store().agents.delete(appId, 'support')).toBe(false);
    expect(await store().agents.get(appId, 'support')).toBeUndefined();
    expect(await store().agents.getById(agent.id)).toBeUndefined();

    expect((await store().agents.getVersion(agent.id, 1))?.definition).toEqual(agent.definition);
    expect((await store().agents.getVersion(agent.id, 2))?.definition.instructions).toBe('v2');

    // The name is free again, under a new id.
    const again = agentRecord(appId, 'support');
    await store().agents.insert(again);
    expect((await store().agents.get(appId, 'support'))?.id).toBe(again.id);
  });
});
