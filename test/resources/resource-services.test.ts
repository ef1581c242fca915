import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BatonError } from '../../src/domain/errors/baton-error.ts';
import { newId } from '../../src/domain/ids.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { AgentService, Resources, serverKeys } from '../../src/resources/index.ts';
import { createSecretRequestSchema, updateSecretRequestSchema } from '../../src/resources/secrets/secret-service.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { APP, mcpToolset } from '../faces/ces/ces-test-client.ts';

/**
 * The services as the MCP tools will call them: request messages in, response messages out, the
 * same JSON the REST routes serve; and request schemas that convert to JSON Schema.
 */
describe('CES resource services with request messages', () => {
  let baton: TestBaton;
  let services: Resources;
  let admin: Principal;

  beforeAll(async () => {
    baton = await startTestBaton();
    const store = baton.baton.store;
    const agents = new AgentService(store, systemClock, newId, () => {});
    services = new Resources({
      store,
      agents,
      keys: serverKeys(Buffer.alloc(32, 7)),
      egress: { allow: [] },
      logger: { warn: () => {} },
    });
    admin = { appId: baton.baton.defaultAppId, keyId: 'key_test', role: 'admin' };
  });
  afterAll(async () => {
    await services?.close();
    await baton?.close();
  });

  it('create_toolset / get_toolset / list_toolsets return what REST returns', async () => {
    const toolset = await services.toolsets.create(admin, {
      parent: APP,
      toolsetId: 'via-mcp',
      toolset: mcpToolset('Via MCP'),
    });
    expect((await baton.request('GET', `/v1/${APP}/toolsets/via-mcp`)).body).toEqual(toolset);
    expect(await services.toolsets.get(admin, { name: toolset.name })).toEqual(toolset);
    expect(await services.toolsets.list(admin, { parent: APP, pageSize: 10 })).toEqual({ toolsets: [toolset] });
    const updated = await services.toolsets.update(admin, {
      toolset: { name: toolset.name, description: 'd' },
      updateMask: 'description',
    });
    expect(updated.description).toBe('d');
    expect(await services.toolsets.delete(admin, { name: toolset.name, force: false, etag: updated.etag })).toEqual({});
  });

  it('unknown request fields are INVALID_ARGUMENT naming the field, at any depth', async () => {
    const failure = async (run: () => Promise<unknown>) => {
      const error = await run().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(BatonError);
      expect((error as BatonError).kind).toBe('invalid_request');
      return (error as BatonError).param;
    };
    expect(
      await failure(() =>
        services.toolsets.create(admin, { parent: APP, toolset: mcpToolset('X'), validateOnly: true }),
      ),
    ).toBe('validateOnly');
    expect(
      await failure(() =>
        services.agents.create(admin, { parent: APP, agent: { displayName: 'A', modelSettings: { modle: 'x' } } }),
      ),
    ).toBe('agent.modelSettings.modle');
    expect(await failure(() => services.apps.get(admin, { name: APP, view: 'FULL' }))).toBe('view');
    expect(await failure(() => services.tools.list(admin, { parent: APP, pageSize: '10' }))).toBe('pageSize');
    expect(await failure(() => services.tools.get(admin, 'not an object'))).toBe(null);
    expect((await services.toolsets.list(admin, { parent: APP })).toolsets).toEqual([]);
  });

  it('every request schema converts to a strict JSON Schema object', () => {
    const families = [services.apps, services.agents, services.tools, services.toolsets];
    const published = families.flatMap((family) => Object.values(family.requests));
    expect(published).toHaveLength(20);
    const schemas = [...published, createSecretRequestSchema, updateSecretRequestSchema];
    for (const schema of schemas) {
      const json = z.toJSONSchema(schema, { io: 'input' }) as {
        type: string;
        additionalProperties: boolean;
        properties: object;
      };
      expect(json.type).toBe('object');
      expect(json.additionalProperties).toBe(false);
    }
    const create = z.toJSONSchema(services.toolsets.requests.create, { io: 'input' }) as any;
    expect(create.required).toEqual(['parent', 'toolset']);
    expect(create.properties.toolset.properties.mcpToolset.properties.serverAddress.type).toBe('string');
  });
});
