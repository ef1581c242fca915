import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { APP, created, expectGoogleError, LOCATION, mcpToolset, read, violatedField } from './ces-test-client.ts';

/** How the REST routes map HTTP onto request messages, and that every failure under /v1/projects is a google.rpc.Status. */
describe('CES REST routes', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton();
  });
  afterAll(async () => baton?.close());

  it('unknown or repeated query parameters are INVALID_ARGUMENT naming them', async () => {
    const unknown = expectGoogleError(
      await baton.request('POST', `/v1/${APP}/toolsets?toolsetID=x`, mcpToolset('Q')),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(unknown)).toBe('toolsetID');
    expect(unknown.message).toContain('toolsetId');
    expectGoogleError(await baton.request('GET', `/v1/${APP}/toolsets?pageSize=1&pageSize=2`), 400, 'INVALID_ARGUMENT');
    expectGoogleError(await baton.request('DELETE', `/v1/${APP}/toolsets/x?force=yes`), 400, 'INVALID_ARGUMENT');
    expect((await baton.request('GET', `/v1/${APP}/toolsets`)).body).toEqual({ toolsets: [] });
  });

  it('bodies must be JSON objects; bad JSON and other media types are google errors too', async () => {
    expectGoogleError(await baton.request('POST', `/v1/${APP}/toolsets`, [mcpToolset('A')]), 400, 'INVALID_ARGUMENT');
    expectGoogleError(await baton.request('POST', `/v1/${APP}/toolsets`, '{"displayName": '), 400, 'INVALID_ARGUMENT');
    expectGoogleError(
      await baton.request('POST', `/v1/${APP}/toolsets`, 'displayName=x', { 'content-type': 'text/plain' }),
      415,
      'INVALID_ARGUMENT',
    );
    expect((await baton.request('GET', `/v1/${APP}/toolsets`)).body.toolsets).toEqual([]);
  });

  it('authentication failures and unknown routes under /v1/projects are google.rpc.Status', async () => {
    expectGoogleError(
      await baton.request('GET', `/v1/${APP}/toolsets`, undefined, { authorization: 'Bearer bk_wrong' }),
      401,
      'UNAUTHENTICATED',
    );
    const route = expectGoogleError(await baton.request('GET', `/v1/${APP}/widgets`), 404, 'NOT_FOUND');
    expect(route.message).toContain('No route');
  });

  it('a missing parent app is NOT_FOUND with its full name and where to look', async () => {
    const error = expectGoogleError(
      await baton.request('POST', `/v1/${LOCATION}/apps/ghost/toolsets`, mcpToolset('G')),
      404,
      'NOT_FOUND',
    );
    expect(error.message).toContain(`${LOCATION}/apps/ghost`);
    expect(error.message).toContain(`GET /v1/${LOCATION}/apps`);
  });

  it('a PATCH updates the resource of the path, whatever name the body carries', async () => {
    const first = await created(baton, `/v1/${APP}/toolsets?toolsetId=first`, mcpToolset('First'));
    const second = await created(baton, `/v1/${APP}/toolsets?toolsetId=second`, mcpToolset('Second'));
    const response = await baton.request('PATCH', `/v1/${first.name}?updateMask=description`, {
      name: second.name,
      description: 'for first',
    });
    expect(response.body.name).toBe(first.name);
    expect((await read(baton, second.name)).body).toEqual(second);
  });

  it('ids and names are checked: a bad toolsetId, a malformed resource name', async () => {
    expect(
      violatedField(
        expectGoogleError(
          await baton.request(
            'POST',
            `/v1/${APP}/toolsets?toolsetId=${encodeURIComponent('has space')}`,
            mcpToolset('S'),
          ),
          400,
          'INVALID_ARGUMENT',
        ),
      ),
    ).toBe('toolsetId');
    expectGoogleError(
      await baton.request(
        'GET',
        `/v1/projects/default/locations/global/apps/default/toolsets/${encodeURIComponent('a/b')}`,
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expect((await baton.request('GET', `/v1/${APP}/toolsets`)).body.toolsets).toHaveLength(2);
  });
});
