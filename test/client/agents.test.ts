import { BatonError } from '@baton/client';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { AgentBody, AgentUpdateBody } from '../../packages/client/src/resources/agents.ts';
import type { AgentWire } from '../../src/resources/agents/agent-config-form.ts';
import { startClientHarness, type ClientHarness } from './client-fixtures.ts';

const lookup: AgentBody = {
  name: 'sdk-agents-lookup',
  model: 'scripted:auto',
  instructions: 'Look orders up.',
  tools: [
    {
      name: 'lookup_order',
      description: 'Finds an order.',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      response_schema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
    },
  ],
};

/** `baton.agents`: create, update (versions, expected_version), upsert and delete against a real Baton. */
describe('agents', () => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await startClientHarness();
  });
  afterAll(async () => h.close());

  it('the body types are the server’s agent schema, key for key (compile time)', () => {
    expectTypeOf<AgentWire>().toExtend<AgentBody>();
    expectTypeOf<AgentBody>().toExtend<AgentWire>();
    expectTypeOf<keyof AgentBody>().toEqualTypeOf<keyof AgentWire>();
    expectTypeOf<keyof AgentUpdateBody>().toEqualTypeOf<keyof AgentWire | 'expected_version'>();
  });

  it('creates version 1, refuses a second create, updates to version 2, and refuses a stale expected_version', async () => {
    const created = await h.baton.agents.create(lookup);
    expect(created).toMatchObject({
      object: 'agent',
      name: lookup.name,
      version: 1,
      model: 'scripted:auto',
      instructions: 'Look orders up.',
    });
    expect(created.tools[0]).toMatchObject({
      name: 'lookup_order',
      response_schema: lookup.tools![0]!.response_schema,
    });

    const again = await h.baton.agents.create(lookup).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(BatonError);
    expect(again).toMatchObject({ status: 409, code: 'agent_exists' });

    const updated = await h.baton.agents.update(lookup.name, {
      model: 'scripted:auto',
      instructions: 'Look orders up, politely.',
      tools: lookup.tools!,
      expected_version: 1,
    });
    expect(updated).toMatchObject({ name: lookup.name, version: 2, instructions: 'Look orders up, politely.' });
    expect(await h.baton.agents.get(lookup.name)).toMatchObject({
      version: 2,
      instructions: 'Look orders up, politely.',
    });

    const stale = await h.baton.agents
      .update(lookup.name, { model: 'scripted:auto', expected_version: 1 })
      .catch((error: unknown) => error);
    expect(stale).toMatchObject({ status: 409, code: 'agent_version_mismatch' });

    const missing = await h.baton.agents
      .update('no-such-agent', { model: 'scripted:auto' })
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404, code: 'agent_not_found' });
  });

  it('upsert creates a missing agent and updates an existing one; delete removes it', async () => {
    const body: AgentBody = { ...lookup, name: 'sdk-agents-upsert' };
    expect(await h.baton.agents.upsert(body)).toMatchObject({ name: body.name, version: 1 });
    expect(await h.baton.agents.upsert({ ...body, description: 'second' })).toMatchObject({
      name: body.name,
      version: 2,
      description: 'second',
    });

    // The agent is usable right away.
    const { id } = await h.baton.threads.create({ agent: body.name });
    const answer = await h.baton.threads.run(id, 'Where is order ORD-12345?', {
      tools: { lookup_order: ({ order_id }) => ({ status: `shipped ${String(order_id)}` }) },
    });
    expect(answer.toolCalls[0]).toMatchObject({ name: 'lookup_order', input: { order_id: 'ORD-12345' } });
    expect(answer.text).toContain('shipped ORD-12345');

    expect(await h.baton.agents.delete(body.name)).toEqual({ object: 'agent.deleted', name: body.name, deleted: true });
    await expect(h.baton.agents.get(body.name)).rejects.toMatchObject({ status: 404, code: 'agent_not_found' });
  });
});
