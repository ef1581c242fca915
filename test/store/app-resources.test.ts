import { describe, expect, it } from 'vitest';
import type { AppResourceRecord, SessionRecord } from '../../src/domain/records.ts';
import { DuplicateKeyError } from '../../src/store/store.ts';
import { backends, useSharedStore } from './store-backends.ts';
import { appRecord, at, ledgerEntry, seedTurn, uid, userMessage } from './store-fixtures.ts';

function tool(appId: string, id: string, overrides: Partial<AppResourceRecord> = {}): AppResourceRecord {
  return {
    appId,
    collection: 'tools',
    id,
    body: { clientFunction: { name: id } },
    revision: 1,
    createdAt: at(1),
    updatedAt: at(1),
    ...overrides,
  };
}

describe.each(backends)('app resources, secrets and sessions ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('keeps app settings under compare-and-set and lists apps by project', async () => {
    const project = uid('project');
    const app = appRecord({ project, settings: { displayName: 'Shop' } });
    await store().apps.insert(app);
    await store().apps.insert(appRecord({ project, name: uid('b') }));
    expect((await store().apps.listByProject(project)).map((one) => one.project)).toEqual([project, project]);
    const updated = await store().apps.updateSettings(app.id, 1, { displayName: 'Shop 2' }, at(5));
    expect(updated).toMatchObject({ revision: 2, settings: { displayName: 'Shop 2' }, updatedAt: at(5) });
    expect(await store().apps.updateSettings(app.id, 1, { displayName: 'lost' }, at(6))).toBeUndefined();
    expect((await store().apps.get(app.id))?.settings).toEqual({ displayName: 'Shop 2' });
  });

  it('stores tools and toolsets apart, refuses duplicate ids, updates under compare-and-set', async () => {
    const app = appRecord();
    await store().apps.insert(app);
    await store().resources.insert(tool(app.id, 'b'));
    await store().resources.insert(tool(app.id, 'a'));
    await store().resources.insert({ ...tool(app.id, 'a'), collection: 'toolsets' });
    await expect(store().resources.insert(tool(app.id, 'a'))).rejects.toThrow(DuplicateKeyError);
    expect((await store().resources.list(app.id, 'tools')).map((one) => one.id)).toEqual(['a', 'b']);
    expect((await store().resources.getMany(app.id, 'tools', ['b', 'missing', 'a'])).map((one) => one.id)).toEqual([
      'b',
      'a',
    ]);
    const updated = await store().resources.update(
      app.id,
      'tools',
      'a',
      1,
      { clientFunction: { name: 'renamed' } },
      at(9),
    );
    expect(updated).toMatchObject({ revision: 2, body: { clientFunction: { name: 'renamed' } }, updatedAt: at(9) });
    expect(await store().resources.update(app.id, 'tools', 'a', 1, {}, at(10))).toBeUndefined();
    expect(await store().resources.delete(app.id, 'tools', 'a')).toBe(true);
    expect(await store().resources.get(app.id, 'tools', 'a')).toBeUndefined();
    expect(await store().resources.get(app.id, 'toolsets', 'a')).toBeDefined();
  });

  it('stores secrets as ciphertext under compare-and-set', async () => {
    const app = appRecord();
    await store().apps.insert(app);
    const secret = {
      appId: app.id,
      id: 'key',
      displayName: null,
      ciphertext: 'v1.x',
      revision: 1,
      createdAt: at(1),
      updatedAt: at(1),
    };
    await store().secrets.insert(secret);
    await expect(store().secrets.insert(secret)).rejects.toThrow(DuplicateKeyError);
    expect(
      await store().secrets.update(app.id, 'key', 1, { ciphertext: 'v1.y', displayName: 'Key' }, at(2)),
    ).toMatchObject({ revision: 2, ciphertext: 'v1.y', displayName: 'Key' });
    expect(
      await store().secrets.update(app.id, 'key', 1, { ciphertext: 'v1.z', displayName: null }, at(3)),
    ).toBeUndefined();
    expect((await store().secrets.list(app.id)).map((one) => one.ciphertext)).toEqual(['v1.y']);
    expect(await store().secrets.delete(app.id, 'key')).toBe(true);
  });

  it('binds a session to one conversation; deleting the conversation removes the session', async () => {
    const { app, conversation } = await seedTurn(store());
    const session: SessionRecord = {
      appId: app.id,
      id: 's-1',
      conversationId: conversation.id,
      ended: false,
      variables: { tier: 'gold' },
      turnCount: 1,
      createdAt: at(1),
      updatedAt: at(1),
    };
    await store().sessions.insert(session);
    await expect(store().sessions.insert(session)).rejects.toThrow(DuplicateKeyError);
    expect(await store().sessions.getByConversation(conversation.id)).toEqual(session);
    expect(await store().sessions.update(app.id, 's-1', { ended: true, turnCount: 2, updatedAt: at(2) })).toMatchObject(
      { ended: true, turnCount: 2, variables: { tier: 'gold' } },
    );
    expect(await store().conversations.delete(app.id, conversation.id)).toBe(true);
    expect(await store().sessions.get(app.id, 's-1')).toBeUndefined();
  });

  it('deletes an app with everything it owns', async () => {
    const { app, conversation, turn } = await seedTurn(store());
    await store().items.append([userMessage(turn, 'hello')]);
    const entry = ledgerEntry(turn, 'support');
    await store().ledger.insert([entry]);
    await store().resources.insert(tool(app.id, 't'));
    await store().sessions.insert({
      appId: app.id,
      id: 's',
      conversationId: conversation.id,
      ended: false,
      variables: {},
      turnCount: 0,
      createdAt: at(1),
      updatedAt: at(1),
    });
    const other = await seedTurn(store());
    expect(await store().apps.delete(app.id)).toBe(true);
    expect(await store().apps.get(app.id)).toBeUndefined();
    expect(await store().conversations.get(app.id, conversation.id)).toBeUndefined();
    expect(await store().items.listByTurn(turn.id)).toEqual([]);
    expect(await store().ledger.get(app.id, entry.id)).toBeUndefined();
    expect(await store().resources.list(app.id, 'tools')).toEqual([]);
    expect(await store().agents.list(app.id, { limit: 10 })).toMatchObject({ data: [] });
    expect(await store().conversations.get(other.app.id, other.conversation.id)).toBeDefined();
    expect(await store().apps.delete(app.id)).toBe(false);
  });
});
