import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import {
  APP,
  clientFunctionTool,
  created,
  expectGoogleError,
  LOCATION,
  mcpToolset,
  violatedField,
} from '../../faces/ces/ces-test-client.ts';

const TOOLSETS = `/v1/${APP}/toolsets`;
const IDS = ['t1', 't2', 't3', 't4', 't5', 't6', 't7'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('CES list methods: pageSize, pageToken, filter, orderBy', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton();
    for (const [index, id] of IDS.entries()) {
      await created(baton, `${TOOLSETS}?toolsetId=${id}`, {
        ...mcpToolset(`Set ${id}`),
        description: index % 2 === 0 ? 'even' : 'odd',
      });
      await sleep(3); // distinct create times, so create_time order is not decided by the name tie-break
    }
  });
  afterAll(async () => baton?.close());

  it('walks three pages without duplicates or gaps; the last page has no nextPageToken', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const response = await baton.request('GET', `${TOOLSETS}?pageSize=3${token ? `&pageToken=${token}` : ''}`);
      expect(response.status).toBe(200);
      pages++;
      seen.push(...response.body.toolsets.map((toolset: any) => toolset.name));
      token = response.body.nextPageToken;
      if (token === undefined) expect(Object.keys(response.body)).toEqual(['toolsets']);
    } while (token !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual(IDS.map((id) => `${APP}/toolsets/${id}`));
  });

  it('a page token reused with another filter is INVALID_ARGUMENT', async () => {
    const first = await baton.request(
      'GET',
      `${TOOLSETS}?pageSize=2&filter=${encodeURIComponent('description = "even"')}`,
    );
    expect(first.body.toolsets.map((toolset: any) => toolset.description)).toEqual(['even', 'even']);
    const error = expectGoogleError(
      await baton.request(
        'GET',
        `${TOOLSETS}?pageSize=2&pageToken=${first.body.nextPageToken}&filter=${encodeURIComponent('description = "odd"')}`,
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(error)).toBe('pageToken');
    expectGoogleError(await baton.request('GET', `${TOOLSETS}?pageToken=forged`), 400, 'INVALID_ARGUMENT');
    // The same filter continues where the first page stopped.
    const second = await baton.request(
      'GET',
      `${TOOLSETS}?pageSize=2&pageToken=${first.body.nextPageToken}&filter=${encodeURIComponent('description = "even"')}`,
    );
    expect(second.body.toolsets.map((toolset: any) => toolset.name)).toEqual([
      `${APP}/toolsets/t5`,
      `${APP}/toolsets/t7`,
    ]);
  });

  it('a negative pageSize is INVALID_ARGUMENT; a huge one is lowered', async () => {
    const error = expectGoogleError(await baton.request('GET', `${TOOLSETS}?pageSize=-1`), 400, 'INVALID_ARGUMENT');
    expect(violatedField(error)).toBe('pageSize');
    expectGoogleError(await baton.request('GET', `${TOOLSETS}?pageSize=ten`), 400, 'INVALID_ARGUMENT');
    expect((await baton.request('GET', `${TOOLSETS}?pageSize=100000`)).body.toolsets).toHaveLength(IDS.length);
  });

  it('filters (AIP-160, camelCase or snake_case) and orders by create_time desc', async () => {
    const odd = await baton.request(
      'GET',
      `${TOOLSETS}?filter=${encodeURIComponent('description = "odd" AND display_name != "Set t4"')}&orderBy=${encodeURIComponent('create_time desc')}`,
    );
    expect(odd.status).toBe(200);
    expect(odd.body.toolsets.map((toolset: any) => toolset.name)).toEqual([`${APP}/toolsets/t6`, `${APP}/toolsets/t2`]);
    const newest = await baton.request(
      'GET',
      `${TOOLSETS}?pageSize=2&orderBy=${encodeURIComponent('create_time desc')}`,
    );
    expect(newest.body.toolsets.map((toolset: any) => toolset.name)).toEqual([
      `${APP}/toolsets/t7`,
      `${APP}/toolsets/t6`,
    ]);
    const byName = await baton.request(
      'GET',
      `${TOOLSETS}?orderBy=${encodeURIComponent('name desc')}&filter=${encodeURIComponent('mcpToolset.serverAddress:"tools.example"')}`,
    );
    expect(byName.body.toolsets[0].name).toBe(`${APP}/toolsets/t7`);
    expect(byName.body.toolsets).toHaveLength(IDS.length);
  });

  it('a filter on a field the resource lacks, or a bad orderBy, is INVALID_ARGUMENT', async () => {
    const error = expectGoogleError(
      await baton.request('GET', `${TOOLSETS}?filter=${encodeURIComponent('colour = "red"')}`),
      400,
      'INVALID_ARGUMENT',
    );
    expect(error.message).toContain("'colour'");
    expect(violatedField(error)).toBe('filter');
    expectGoogleError(
      await baton.request('GET', `${TOOLSETS}?filter=${encodeURIComponent('displayName = ')}`),
      400,
      'INVALID_ARGUMENT',
    );
    expect(
      violatedField(
        expectGoogleError(await baton.request('GET', `${TOOLSETS}?orderBy=displayName`), 400, 'INVALID_ARGUMENT'),
      ),
    ).toBe('orderBy');
  });

  it('every collection lists through the same helper', async () => {
    await created(baton, `/v1/${APP}/tools?toolId=listed`, clientFunctionTool('listed'));
    await created(baton, `/v1/${APP}/agents?agentId=listed`, { displayName: 'Listed agent' });
    await created(baton, `/v1/${APP}/secrets?secretId=listed`, { displayName: 'Listed secret', value: 'v' });
    const filter = (field: string, value: string) => `filter=${encodeURIComponent(`${field} = "${value}"`)}`;
    expect((await baton.request('GET', `/v1/${APP}/tools?${filter('displayName', 'listed')}`)).body.tools).toHaveLength(
      1,
    );
    expect(
      (await baton.request('GET', `/v1/${APP}/agents?${filter('displayName', 'Listed agent')}`)).body.agents,
    ).toHaveLength(1);
    expect(
      (await baton.request('GET', `/v1/${APP}/secrets?${filter('displayName', 'Listed secret')}`)).body.secrets,
    ).toHaveLength(1);
    expect((await baton.request('GET', `/v1/${LOCATION}/apps?${filter('name', APP)}`)).body.apps).toHaveLength(1);
    expectGoogleError(
      await baton.request('GET', `/v1/${APP}/secrets?${filter('value', 'v')}`),
      400,
      'INVALID_ARGUMENT',
    );
  });
});
