/**
 * OpenAPI documents are read in worker threads within the operator's limits (`tools.openapi`):
 * a document past one is refused with a 400 naming the limit, and one that takes too long is
 * stopped, its worker replaced, while the server goes on answering everyone else.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_SETTINGS } from '../../../src/resources/tools/tool-settings.ts';
import { expectGoogleError, violatedField } from '../../faces/ces/ces-test-client.ts';
import { referenceChainDocument } from '../../helpers/hostile-openapi.ts';
import { startTestBaton, type TestBaton, type TestResponse } from '../../helpers/test-baton.ts';

const APP = 'projects/default/locations/global/apps/default';
const FIELD = 'toolset.openApiToolset.openApiSchema';

describe('OpenAPI documents past the limits of tools.openapi', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton({
      tools: {
        ...DEFAULT_TOOL_SETTINGS,
        // Counts high enough to let a slow document through to the wall-clock budget.
        openApi: { maxBytes: 8192, maxRefs: 1_000_000, maxDepth: 200, timeoutMs: 3000 },
      },
    });
  });
  afterAll(async () => baton?.close());

  const post = (id: string, openApiSchema: string): Promise<TestResponse> =>
    baton.request('POST', `/v1/${APP}/toolsets?toolsetId=${id}`, {
      displayName: id,
      openApiToolset: { openApiSchema, url: 'https://api.example.com' },
    });

  function refusal(response: TestResponse, code: string, limit: string): string {
    const error = expectGoogleError(response, 400, 'INVALID_ARGUMENT');
    expect(error.details[0]).toMatchObject({ reason: code.toUpperCase(), metadata: { limit } });
    expect(violatedField(error)).toBe(FIELD);
    return error.message;
  }

  it('refuses a 5 KB document whose schemas reference each other into 10^14 expansions, naming max_refs', async () => {
    const message = refusal(
      await post('wide', referenceChainDocument(24, 4)),
      'openapi_document_too_complex',
      'max_refs',
    );
    expect(message).toMatch(
      /^toolset\.openApiToolset\.openApiSchema is refused: the OpenAPI document's \$refs expand more than 1000000 times/,
    );
    expect(message).toContain('(tools.openapi.max_refs is 1000000).');
  });

  it('stops a document that takes longer than its budget, answering other requests meanwhile; the next document is read', async () => {
    // 2^19 expansions: under max_refs here, and minutes of validation.
    let answered = false;
    const slow = post('slow', referenceChainDocument(17, 2)).finally(() => {
      answered = true;
    });
    expect((await baton.request('GET', '/healthz')).body).toEqual({ ok: true });
    expect((await baton.request('GET', `/v1/${APP}/toolsets`)).status).toBe(200);
    expect(answered).toBe(false);
    const message = refusal(await slow, 'openapi_document_too_complex', 'timeout_seconds');
    expect(message).toContain('reading the OpenAPI document took longer than 3 s and was stopped');
    expect(message).toContain('(tools.openapi.timeout_seconds is 3).');

    const petstore = readFileSync(new URL('../../fixtures/openapi/petstore.yaml', import.meta.url), 'utf8');
    const created = await post('petstore', petstore);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  });

  it('refuses a document over max_bytes, naming the limit', async () => {
    const big = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'Big', version: '1', description: 'x'.repeat(9000) },
      paths: {},
    });
    const message = refusal(await post('big', big), 'openapi_document_too_large', 'max_bytes');
    expect(message).toBe(
      `${FIELD} is refused: the OpenAPI document is ${big.length} bytes, more than the limit of 8192 bytes (tools.openapi.max_bytes is 8192).`,
    );
  });
});
