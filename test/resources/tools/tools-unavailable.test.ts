import { describe, expect, it } from 'vitest';
import type { AgentDefinition, AppResourceRecord } from '../../../src/domain/records.ts';
import { BatonError } from '../../../src/domain/errors/baton-error.ts';
import { AppToolProvider } from '../../../src/resources/tools/app-tool-provider.ts';
import { TOOL_KINDS } from '../../../src/resources/tool-kinds/registry.ts';
import type { Store } from '../../../src/store/store.ts';
import type { OpenApiCompiler } from '../../../src/tools/openapi/openapi-pool.ts';
import { WorkerPoolError, type WorkerPoolFailure } from '../../../src/tools/workers/worker-pool-error.ts';

/**
 * A toolset whose OpenAPI document the workers cannot read now (all busy, restarting) refuses the
 * turn as retryable (503 server_tools_unavailable) instead of running it without the tools, as if
 * they did not exist; a document that no longer compiles still costs only its own tools.
 */
const toolset: AppResourceRecord = {
  appId: 'app_1',
  collection: 'toolsets',
  id: 'prices',
  body: { openApiToolset: { openApiSchema: '{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{}}' } },
  revision: 1,
  createdAt: '2026-11-27T00:00:00.000Z',
  updatedAt: '2026-11-27T00:00:00.000Z',
};
const agent = { name: 'shop', toolsets: [{ toolsetId: 'prices' }] } as unknown as AgentDefinition;

function providerFailingWith(reason: WorkerPoolFailure): AppToolProvider {
  const store = {
    resources: { get: async () => toolset, getMany: async () => [] },
  } as unknown as Store;
  const openApi = {
    limits: {},
    compile: async () => {
      throw new WorkerPoolError(reason, `the OpenAPI workers said ${reason}`);
    },
  } as unknown as OpenApiCompiler;
  return new AppToolProvider({
    store,
    kinds: TOOL_KINDS,
    policy: { allow: [] } as never,
    readSecret: async () => undefined as never,
    logger: { warn: () => {}, info: () => {}, error: () => {} } as never,
    sandbox: {} as never,
    openApi,
    maxTimeoutSeconds: 300,
  });
}

describe('server tools that cannot be prepared now', () => {
  for (const reason of ['busy', 'wait_timeout', 'closed', 'crashed'] as const) {
    it(`refuses the turn as retryable when the workers answer '${reason}'`, async () => {
      const refused = await providerFailingWith(reason)
        .listServerTools('app_1', agent)
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(BatonError);
      expect(refused).toMatchObject({ code: 'server_tools_unavailable', status: 503, retryAfterSeconds: 1 });
      expect((refused as BatonError).message).toContain('toolsets/prices');
    });
  }

  it('drops only the tools of a document that no longer compiles', async () => {
    expect(await providerFailingWith('task_failed').listServerTools('app_1', agent)).toEqual([]);
  });
});
