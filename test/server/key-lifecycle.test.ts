import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/** Keys as records: listed without secrets, revoked and rotated with an immediate effect here, expiring. */
describe('API keys as records', () => {
  let baton: TestBaton;
  let admin: string;
  let appId: string;

  const as = (key: string, method: string, path: string, body?: unknown) =>
    baton.request(method, path, body, { authorization: `Bearer ${key}` });

  beforeAll(async () => {
    baton = await startTestBaton();
    const created = await baton.request('POST', '/v1/apps', { name: 'keyring' });
    admin = created.body.api_key.key;
    appId = created.body.id;
  });
  afterAll(async () => {
    await baton?.close();
  });

  it('lists the app’s keys without their secrets, with role, expiry and last use', async () => {
    const made = await as(admin, 'POST', '/v1/api-keys', {
      name: 'dashboard',
      role: 'reader',
      expires_in_seconds: 3600,
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ object: 'api_key', role: 'reader', name: 'dashboard', app_id: appId });
    expect(made.body.key).toMatch(/^bk_/);
    expect(Date.parse(made.body.expires_at) - Date.now()).toBeGreaterThan(3500_000);
    expect((await as(made.body.key, 'GET', '/v1/me')).status).toBe(200);

    const listed = await as(admin, 'GET', '/v1/api-keys');
    expect(listed.status).toBe(200);
    const ids = listed.body.data.map((key: { id: string }) => key.id);
    expect(ids).toContain(made.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(made.body.key);
    const reader = listed.body.data.find((key: { id: string }) => key.id === made.body.id);
    expect(reader).toMatchObject({ prefix: made.body.key.slice(0, 7), role: 'reader', revoked_at: null });
    expect(reader.last_used_at).toEqual(expect.any(String));
    // Only this app's keys: the operator's key is not among them.
    expect(listed.body.data.every((key: { app_id: string }) => key.app_id === appId)).toBe(true);
  });

  it('refuses keys above the caller’s role and out-of-range lifetimes, naming the field', async () => {
    const operator = await as(admin, 'POST', '/v1/api-keys', { role: 'operator' });
    expect(operator.status).toBe(403);
    expect(operator.body.error.code).toBe('insufficient_role');
    const tooLong = await as(admin, 'POST', '/v1/api-keys', { expires_in_seconds: 1e12 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.param).toBe('expires_in_seconds');
    const member = (await as(admin, 'POST', '/v1/api-keys', { role: 'member' })).body.key;
    const byMember = await as(member, 'POST', '/v1/api-keys', { role: 'member' });
    expect(byMember.status).toBe(403);
    expect((await as(member, 'GET', '/v1/api-keys')).status).toBe(403);
  });

  it('revokes a key: 401 api_key_revoked at once, and the record says when', async () => {
    const made = await as(admin, 'POST', '/v1/api-keys', { role: 'member' });
    expect((await as(made.body.key, 'GET', '/v1/threads')).status).toBe(200); // cached now
    const revoked = await as(admin, 'DELETE', `/v1/api-keys/${made.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    const refused = await as(made.body.key, 'GET', '/v1/threads');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('api_key_revoked');
    expect(refused.body.error.message).toContain(made.body.id);
    expect((await as(admin, 'DELETE', '/v1/api-keys/key_unknown')).status).toBe(404);
  });

  it('rotates a key: the new one works, the old one until its grace ends', async () => {
    const old = await as(admin, 'POST', '/v1/api-keys', { role: 'member', name: 'worker' });
    const rotated = await as(admin, 'POST', `/v1/api-keys/${old.body.id}/rotate`, { grace_seconds: 3600 });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ role: 'member', name: 'worker', replaces: { id: old.body.id } });
    expect(Date.parse(rotated.body.replaces.expires_at) - Date.now()).toBeGreaterThan(3500_000);
    expect((await as(rotated.body.key, 'GET', '/v1/threads')).status).toBe(200);
    expect((await as(old.body.key, 'GET', '/v1/threads')).status).toBe(200);

    const again = await as(admin, 'POST', `/v1/api-keys/${rotated.body.id}/rotate`, { grace_seconds: 0 });
    expect(again.status).toBe(201);
    const expired = await as(rotated.body.key, 'GET', '/v1/threads');
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('api_key_expired');
    expect((await as(again.body.key, 'GET', '/v1/threads')).status).toBe(200);
    const bad = await as(admin, 'POST', `/v1/api-keys/${again.body.id}/rotate`, { grace_seconds: 10 ** 9 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('grace_seconds');
  });

  it('a deleted app’s keys get 401 at once, never a 500', async () => {
    const doomed = await baton.request('POST', '/v1/apps', { name: 'doomed' });
    const key = doomed.body.api_key.key;
    expect((await as(key, 'GET', '/v1/threads')).status).toBe(200); // cached now
    const deleted = await baton.request('DELETE', '/v1/projects/default/locations/global/apps/doomed');
    expect(deleted.status).toBe(200);
    for (const [method, path] of [
      ['GET', '/v1/threads'],
      ['POST', '/v1/threads'],
      ['GET', '/v1/me'],
    ] as const) {
      const refused = await as(key, method, path, method === 'POST' ? {} : undefined);
      expect(refused.status, `${method} ${path}`).toBe(401);
      expect(refused.body.error.code).toBe('invalid_api_key');
    }
  });

  it('an operator manages another app’s keys with app_id; an app admin cannot', async () => {
    const other = await baton.request('POST', '/v1/apps', { name: 'managed' });
    const minted = await baton.request('POST', '/v1/api-keys', { app_id: other.body.id, role: 'reader' });
    expect(minted.status).toBe(201);
    expect(minted.body.app_id).toBe(other.body.id);
    const listed = await baton.request('GET', `/v1/api-keys?app_id=${other.body.id}`);
    expect(listed.body.data).toHaveLength(2);
    expect((await as(admin, 'GET', `/v1/api-keys?app_id=${other.body.id}`)).status).toBe(404);
    expect((await as(admin, 'DELETE', `/v1/api-keys/${minted.body.id}?app_id=${other.body.id}`)).status).toBe(404);
    expect((await baton.request('DELETE', `/v1/api-keys/${minted.body.id}?app_id=${other.body.id}`)).status).toBe(200);
  });
});
