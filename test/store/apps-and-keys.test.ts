import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../src/domain/records.ts';
import { DuplicateKeyError } from '../../src/store/store.ts';
import { backends, useSharedStore } from './store-backends.ts';
import { appRecord, at, uid } from './store-fixtures.ts';

function apiKey(appId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: uid('key'),
    appId,
    name: 'ci',
    keyHash: uid('hash'),
    prefix: 'bt_1234',
    role: 'admin',
    createdAt: at(0),
    revokedAt: null,
    expiresAt: null,
    lastUsedAt: null,
    toolScope: null,
    ...overrides,
  };
}

describe.each(backends)('apps and api keys ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('inserts an app and reads it by id and by name', async () => {
    const app = appRecord();
    await store().apps.insert(app);
    expect(await store().apps.get(app.id)).toEqual(app);
    expect(await store().apps.getByName(app.name)).toEqual(app);
  });

  it('returns undefined for unknown apps', async () => {
    expect(await store().apps.get(uid('missing'))).toBeUndefined();
    expect(await store().apps.getByName(uid('missing'))).toBeUndefined();
  });

  it('refuses a second app with the same id or name', async () => {
    const app = appRecord();
    await store().apps.insert(app);
    await expect(store().apps.insert({ ...app, name: uid('other') })).rejects.toThrow(DuplicateKeyError);
    await expect(store().apps.insert({ ...app, id: uid('other') })).rejects.toThrow(/apps/);
  });

  it('finds a key by its hash, with nullable fields round-tripped', async () => {
    const app = appRecord();
    await store().apps.insert(app);
    const key = apiKey(app.id, { name: null, role: 'member', revokedAt: at(5) });
    await store().apiKeys.insert(key);
    expect(await store().apiKeys.findByHash(key.keyHash)).toEqual(key);
    expect(await store().apiKeys.findByHash(uid('hash'))).toBeUndefined();
  });

  it('throws DuplicateKeyError naming the table when a key hash is reused', async () => {
    const app = appRecord();
    await store().apps.insert(app);
    const key = apiKey(app.id);
    await store().apiKeys.insert(key);
    const duplicate = store().apiKeys.insert(apiKey(app.id, { keyHash: key.keyHash }));
    await expect(duplicate).rejects.toBeInstanceOf(DuplicateKeyError);
    await expect(store().apiKeys.insert(apiKey(app.id, { keyHash: key.keyHash }))).rejects.toThrow(/api_keys/);
  });

  it('counts keys', async () => {
    const before = await store().apiKeys.count();
    const app = appRecord();
    await store().apps.insert(app);
    await store().apiKeys.insert(apiKey(app.id));
    await store().apiKeys.insert(apiKey(app.id));
    const after = await store().apiKeys.count();
    expect(typeof after).toBe('number');
    expect(after).toBe(before + 2);
  });

  it('lists, revokes, expires and touches keys, scoped by app', async () => {
    const app = appRecord();
    const other = appRecord();
    await store().apps.insert(app);
    await store().apps.insert(other);
    const older = apiKey(app.id, { createdAt: at(1) });
    const newer = apiKey(app.id, { createdAt: at(2), role: 'reader' });
    const foreign = apiKey(other.id);
    for (const key of [older, newer, foreign]) await store().apiKeys.insert(key);

    expect((await store().apiKeys.listByApp(app.id, 10)).map((key) => key.id)).toEqual([newer.id, older.id]);
    expect(await store().apiKeys.listByApp(app.id, 1)).toHaveLength(1);
    expect(await store().apiKeys.get(app.id, foreign.id)).toBeUndefined();
    expect(await store().apiKeys.revoke(app.id, foreign.id, at(3))).toBeUndefined();
    expect((await store().apiKeys.get(other.id, foreign.id))?.revokedAt).toBeNull();

    expect((await store().apiKeys.revoke(app.id, older.id, at(3)))?.revokedAt).toBe(at(3));
    // A second revoke keeps the first instant.
    expect((await store().apiKeys.revoke(app.id, older.id, at(9)))?.revokedAt).toBe(at(3));

    await store().apiKeys.expireBy(app.id, newer.id, at(20));
    await store().apiKeys.expireBy(app.id, newer.id, at(30)); // never later
    expect((await store().apiKeys.get(app.id, newer.id))?.expiresAt).toBe(at(20));
    await store().apiKeys.expireBy(app.id, newer.id, at(10));
    expect((await store().apiKeys.get(app.id, newer.id))?.expiresAt).toBe(at(10));

    await store().apiKeys.touch(newer.id, at(5), at(4));
    expect((await store().apiKeys.get(app.id, newer.id))?.lastUsedAt).toBe(at(5));
    await store().apiKeys.touch(newer.id, at(6), at(4)); // used after at(4) already: no write
    expect((await store().apiKeys.get(app.id, newer.id))?.lastUsedAt).toBe(at(5));
  });
});
