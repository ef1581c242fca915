/**
 * An OpenAPI document Baton could not turn into tools is refused when the Tool or Toolset is
 * written — 400 INVALID_ARGUMENT naming `…openApiSchema` and what is wrong — so nothing broken
 * is ever stored, and an agent never meets it at turn time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBaton } from '../../helpers/test-baton.ts';
import { expectGoogleError, violatedField } from '../../faces/ces/ces-test-client.ts';
import { APP, ask, callProgram, createAgent, createToolset, startToolBaton } from './provider-fixtures.ts';

const INFO = 'openapi: 3.0.0\ninfo: {title: t, version: "1"}\nservers: [{url: "https://api.example.com"}]\n';
const op = (id: string) => `{get: {operationId: ${id}, responses: {"200": {description: ok}}}}`;

/** [case, document, what the message must say] */
const BROKEN: [string, string, string][] = [
  [
    'a $ref to nothing',
    `${INFO}paths:\n  /p:\n    get:\n      operationId: getP\n      responses: {"200": {description: ` +
      `ok, content: {application/json: {schema: {$ref: "#/components/schemas/Nope"}}}}}`,
    '$ref "#/components/schemas/Nope" points to nothing in the document',
  ],
  ['no paths', INFO, "must have required property 'paths'"],
  [
    'Swagger 2.0',
    'swagger: "2.0"\ninfo: {title: t, version: "1"}\npaths: {}',
    'Swagger 2.0 documents are not supported',
  ],
  [
    'an unsupported version',
    'openapi: 9.9.9\ninfo: {title: t, version: "1"}\npaths: {}',
    'OpenAPI version "9.9.9" is not supported',
  ],
  [
    'a duplicated operationId',
    `${INFO}paths:\n  /a: ${op('x')}\n  /b: ${op('x')}`,
    'The operationId `x` is duplicated',
  ],
  [
    'no servers and no url',
    'openapi: 3.0.0\ninfo: {title: t, version: "1"}\npaths:\n  /a: ' + op('a'),
    'declares no servers',
  ],
  ['broken YAML', 'openapi: 3.0.0\ninfo: {title: t\n  bad: [', 'is neither JSON nor YAML'],
  ['a list, not a document', '- openapi\n- paths', 'must be an OpenAPI document'],
];

describe('an invalid OpenAPI document is refused at create and update', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startToolBaton(callProgram({ ping: { tool: 'ping' } }));
  });
  afterAll(async () => baton?.close());

  const list = async (collection: 'tools' | 'toolsets'): Promise<unknown[]> => {
    const response = await baton.request('GET', `/v1/${APP}/${collection}`);
    expect(response.status).toBe(200);
    return response.body[collection] ?? [];
  };

  it.each(BROKEN)(
    'toolset with %s: 400 naming openApiSchema and the problem; nothing stored',
    async (_case, document, problem) => {
      const response = await baton.request('POST', `/v1/${APP}/toolsets?toolsetId=broken`, {
        displayName: 'Broken',
        openApiToolset: { openApiSchema: document },
      });
      const error = expectGoogleError(response, 400, 'INVALID_ARGUMENT');
      expect(violatedField(error)).toBe('toolset.openApiToolset.openApiSchema');
      expect(error.message).toMatch(/^toolset\.openApiToolset\.openApiSchema /);
      expect(error.message).toContain(problem);
      expect(await list('toolsets')).toEqual([]);
      expectGoogleError(await baton.request('GET', `/v1/${APP}/toolsets/broken`), 404, 'NOT_FOUND');
    },
  );

  it.each(BROKEN)(
    'tool with %s: 400 naming openApiSchema and the problem; nothing stored',
    async (_case, document, problem) => {
      const response = await baton.request('POST', `/v1/${APP}/tools?toolId=broken`, {
        openApiTool: { openApiSchema: document },
      });
      const error = expectGoogleError(response, 400, 'INVALID_ARGUMENT');
      expect(violatedField(error)).toBe('tool.openApiTool.openApiSchema');
      expect(error.message).toContain(problem);
      expect(await list('tools')).toEqual([]);
    },
  );

  it('an openApiTool over several operations must name one of them', async () => {
    const document = `${INFO}paths:\n  /a: ${op('getA')}\n  /b: ${op('getB')}`;
    for (const name of [undefined, 'getC']) {
      const response = await baton.request('POST', `/v1/${APP}/tools?toolId=ambiguous`, {
        openApiTool: { openApiSchema: document, ...(name ? { name } : {}) },
      });
      const error = expectGoogleError(response, 400, 'INVALID_ARGUMENT');
      expect(violatedField(error)).toBe('tool.openApiTool.openApiSchema');
      expect(error.message).toContain('an openApiTool stands for one operation, but the document has 2 (getA, getB)');
    }
    expect(await list('tools')).toEqual([]);
    const named = await baton.request('POST', `/v1/${APP}/tools?toolId=named`, {
      openApiTool: { openApiSchema: document, name: 'getB' },
    });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    expect((await baton.request('DELETE', `/v1/${APP}/tools/named`)).status).toBe(200);
  });

  it('an update to a broken document is refused and the toolset keeps working as it was', async () => {
    const good = `${INFO}paths:\n  /ping: ${op('ping')}`;
    // The url is loopback, which this Baton's egress guard refuses: a deterministic outcome of a call that ran.
    const toolset = await createToolset(baton, 'kept', {
      displayName: 'Kept',
      openApiToolset: { openApiSchema: good, url: 'http://127.0.0.1:9' },
    });
    await createAgent(baton, 'pinger', { toolsets: [{ toolset: 'kept' }] });
    const update = await baton.request('PATCH', `/v1/${toolset.name}?updateMask=openApiToolset`, {
      openApiToolset: { openApiSchema: BROKEN[0]![1] },
    });
    const error = expectGoogleError(update, 400, 'INVALID_ARGUMENT');
    expect(violatedField(error)).toBe('toolset.openApiToolset.openApiSchema');
    const after = await baton.request('GET', `/v1/${toolset.name}`);
    expect(after.body.openApiToolset.openApiSchema).toBe(good);
    expect(after.body.etag).toBe(toolset.etag);
    // The agent still gets the tool, compiled from the kept document: the call runs up to the egress guard.
    const turn = await ask(baton, 'pinger', 'ping');
    expect(turn.calls.map((call) => [call.name, call.executor])).toEqual([['ping', 'server']]);
    expect(turn.text).toBe(
      'Failed: GET http://127.0.0.1:9/ping failed: Refused to connect to 127.0.0.1: 127.0.0.1 is ' +
        'a loopback address. Outbound calls to non-public addresses are blocked; if this destination ' +
        'is intended, add "127.0.0.1/32" to egress.allow in the Baton config.',
    );
  });
});
