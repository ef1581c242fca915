import type {
  Agent,
  BatonRun,
  CesConversation,
  CesToolCall,
  FunctionCallItem,
  IssuedWebhookEndpoint,
  LedgerEntry,
  MessageItem,
  MessageResponse,
  PendingToolCall,
  SessionOutput,
  Thread,
  ThreadMessage,
  ToolCallResolution,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreateBody,
  WebhookEndpointUpdateBody,
  WebhookSecretRotateBody,
} from '@baton/client';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { agentToWire } from '../../src/resources/agents/agent-config-form.ts';
import type { ConversationView } from '../../src/faces/ces/sessions/conversation-views.ts';
import type { SessionOutput as ServerSessionOutput, ToolCallWire } from '../../src/faces/ces/sessions/session-wire.ts';
import type { RunView } from '../../src/faces/responses/response-views.ts';
import type {
  ledgerEntryView,
  messageResponseView,
  MessageView,
  threadView,
  toolCallView,
} from '../../src/faces/threads/thread-views.ts';
import type {
  createEndpointRequest,
  rotateSecretRequest,
  updateEndpointRequest,
} from '../../src/resources/webhooks/webhook-requests.ts';
import type { deliveryView, endpointView } from '../../src/faces/webhooks/webhook-views.ts';
import { seedStoreAgent, sessionPrograms } from '../faces/ces/sessions/session-fixtures.ts';
import { APP, SEED, startClientHarness, type ClientHarness } from './client-fixtures.ts';

/**
 * The SDK's wire models are the server's: tsc (npm run typecheck covers test/) checks that what
 * the server's view functions return fits the SDK types and has the same keys, and the runtime
 * part checks real answers have exactly the keys the SDK declares.
 */
describe('wire types', () => {
  it('server views are assignable to the SDK types, key for key (compile time)', () => {
    expectTypeOf<ReturnType<typeof threadView>>().toExtend<Thread>();
    expectTypeOf<keyof ReturnType<typeof threadView>>().toEqualTypeOf<keyof Thread>();
    expectTypeOf<ReturnType<typeof messageResponseView>>().toExtend<MessageResponse>();
    expectTypeOf<keyof ReturnType<typeof messageResponseView>>().toEqualTypeOf<keyof MessageResponse>();
    expectTypeOf<ReturnType<typeof toolCallView>>().toExtend<PendingToolCall>();
    expectTypeOf<ReturnType<typeof ledgerEntryView>>().toExtend<LedgerEntry>();
    expectTypeOf<keyof ReturnType<typeof ledgerEntryView>>().toEqualTypeOf<keyof LedgerEntry>();
    // The transcript's `content` is `unknown` on the server side; its keys must still match.
    expectTypeOf<keyof MessageView>().toEqualTypeOf<keyof ThreadMessage>();
    expectTypeOf<ReturnType<typeof agentToWire>>().toExtend<Agent>();
    expectTypeOf<keyof ReturnType<typeof agentToWire>>().toEqualTypeOf<keyof Agent>();
    expectTypeOf<RunView>().toExtend<BatonRun>();
    expectTypeOf<keyof RunView>().toEqualTypeOf<keyof BatonRun>();
    expectTypeOf<ServerSessionOutput>().toExtend<SessionOutput>();
    expectTypeOf<keyof ServerSessionOutput>().toEqualTypeOf<keyof SessionOutput>();
    expectTypeOf<ToolCallWire>().toExtend<CesToolCall>();
    expectTypeOf<ConversationView>().toExtend<CesConversation>();
    expectTypeOf<ReturnType<typeof endpointView>>().toExtend<WebhookEndpoint>();
    expectTypeOf<keyof ReturnType<typeof endpointView>>().toEqualTypeOf<keyof WebhookEndpoint>();
    expectTypeOf<ReturnType<typeof deliveryView>>().toExtend<WebhookDelivery>();
    expectTypeOf<keyof ReturnType<typeof deliveryView>>().toEqualTypeOf<keyof WebhookDelivery>();
    // What the SDK sends, the server's request schemas take, field for field.
    expectTypeOf<WebhookEndpointCreateBody>().toExtend<z.input<typeof createEndpointRequest>>();
    expectTypeOf<keyof WebhookEndpointCreateBody>().toEqualTypeOf<keyof z.input<typeof createEndpointRequest>>();
    expectTypeOf<WebhookEndpointUpdateBody>().toExtend<z.input<typeof updateEndpointRequest>>();
    expectTypeOf<keyof WebhookEndpointUpdateBody>().toEqualTypeOf<keyof z.input<typeof updateEndpointRequest>>();
    expectTypeOf<WebhookSecretRotateBody>().toExtend<z.input<typeof rotateSecretRequest>>();
  });

  describe('real answers parse into the SDK types', () => {
    let h: ClientHarness;
    beforeAll(async () => {
      h = await startClientHarness({}, [], { stores: sessionPrograms.stores });
      await seedStoreAgent(h.server);
    });
    afterAll(async () => h.close());

    /** `required` keys must be there, `optional` ones may be, nothing else may. Typed so the lists cover each SDK type exactly. */
    function expectShape<T>(value: unknown, spec: { [K in keyof T]-?: 'required' | 'optional' }): void {
      const keys = Object.keys(value as object);
      const declared = Object.keys(spec);
      expect(
        keys.filter((key) => !declared.includes(key)),
        'keys the SDK type does not declare',
      ).toEqual([]);
      const required = Object.entries(spec).flatMap(([key, kind]) => (kind === 'required' ? [key] : []));
      expect(
        required.filter((key) => !keys.includes(key)),
        'keys the SDK type requires',
      ).toEqual([]);
    }

    const R = 'required' as const;
    const O = 'optional' as const;

    it('threads, messages, the ledger and agents', async () => {
      const thread = await h.baton.threads.create({ agent: 'refund-desk', metadata: { order: '1' } });
      expectShape<Thread>(thread, {
        id: R,
        object: R,
        agent: R,
        status: R,
        pending_tool_calls: R,
        metadata: R,
        created_at: R,
        updated_at: R,
      });
      const reply = (await h.baton.threads.send(thread.id, { content: SEED })) as MessageResponse;
      expectShape<MessageResponse>(reply, {
        id: R,
        object: R,
        thread_id: R,
        turn_id: R,
        created_at: R,
        choices: R,
        usage: R,
      });
      const call = reply.choices[0]!.message.tool_calls![0]!;
      expectShape<PendingToolCall>(call, { id: R, type: R, name: R, input: R, kind: O });
      const pending = await h.baton.threads.get(thread.id);
      expect(pending.pending_tool_calls[0]).toMatchObject({ id: call.id, deadline_at: null });
      const resolution: ToolCallResolution = await h.baton.toolCalls.submitResult(call.id, { content: 'ok' });
      expectShape<ToolCallResolution>(resolution, { tool_call: R, resumed: R, response: R });
      expectShape<LedgerEntry>(resolution.tool_call, {
        object: R,
        id: R,
        type: R,
        name: R,
        input: R,
        arguments_hash: R,
        kind: R,
        state: R,
        thread_id: R,
        turn_id: R,
        agent: R,
        deadline_at: R,
        timeout_policy: R,
        result: R,
        submitted_by: R,
        submitted_at: R,
        created_at: R,
        updated_at: R,
        executor: R,
        attempts: O,
        max_attempts: O,
        lease: O,
      });
      const messages = await h.baton.threads.messages(thread.id, { limit: 2 });
      expect(messages).toMatchObject({ object: 'list', has_more: true, next_cursor: expect.any(String) });
      for (const message of await h.baton.threads.allMessages(thread.id)) {
        expectShape<ThreadMessage>(message, {
          id: R,
          object: R,
          role: R,
          content: R,
          tool_calls: O,
          reasoning: O,
          turn_id: R,
          created_at: R,
        });
      }
      const agent = await h.baton.agents.get('refund-desk');
      expectShape<Agent>(agent, {
        object: R,
        id: R,
        name: R,
        version: R,
        model: R,
        instructions: R,
        description: R,
        tools: R,
        max_steps: R,
        parallel_tool_calls: R,
        tool_timeout_seconds: R,
        timeout_policy: R,
        input_policy: R,
        partial_results: R,
        paused_response_status: R,
        history_limit: R,
        temperature: R,
        max_output_tokens: R,
        provider_options: R,
        retention: O,
        created_at: R,
        updated_at: R,
      });
    });

    it('webhook endpoints', async () => {
      // Only endpoint.disabled: nothing of this suite is ever sent to it.
      const created = await h.baton.webhooks.create({
        url: 'https://hooks.example.com/wire',
        event_types: ['endpoint.disabled'],
      });
      const endpoint = {
        object: R,
        id: R,
        url: R,
        description: R,
        event_types: R,
        agents: R,
        tools: R,
        include_arguments: R,
        enabled: R,
        disabled_reason: R,
        failing_since: R,
        previous_secret_expires_at: R,
        created_at: R,
        updated_at: R,
      } as const;
      expectShape<IssuedWebhookEndpoint>(created, { ...endpoint, secret: R });
      expectShape<WebhookEndpoint>(await h.baton.webhooks.get(created.id), endpoint);
      expectShape<WebhookEndpoint>(await h.baton.webhooks.update(created.id, { enabled: false }), endpoint);
      expect(await h.baton.webhooks.deliveries(created.id)).toEqual({
        object: 'list',
        data: [],
        next_cursor: null,
        has_more: false,
      });
      await h.baton.webhooks.delete(created.id);
    });

    it('a paused response and its function_call item', async () => {
      const response = await h.baton.responses.create({
        model: 'scripted:auto',
        input: 'What is the weather in Paris?',
        tools: [
          {
            type: 'function',
            name: 'get_weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        ],
      });
      expectShape<BatonRun>(response.baton_run, {
        id: R,
        conversation_id: R,
        status: R,
        pending_tool_call_ids: R,
        pending_approval_ids: R,
      });
      const item = response.output.find((entry): entry is FunctionCallItem => entry.type === 'function_call');
      expectShape<FunctionCallItem>(item, { type: R, id: R, call_id: R, name: R, arguments: R, status: R });
      const done = await h.baton.responses.create({
        previous_response_id: response.id,
        input: [{ type: 'function_call_output', call_id: item!.call_id, output: '18C' }],
      });
      const message = done.output.find((entry): entry is MessageItem => entry.type === 'message');
      expectShape<MessageItem>(message, { type: R, id: R, status: R, role: R, content: R });
    });

    it('CES session outputs and tool calls', async () => {
      const session = `${APP}/sessions/wire-1`;
      const { outputs } = await h.baton.ces.sessions.runRaw(session, {
        config: { session },
        inputs: [{ text: 'nearest store' }],
      });
      const output = outputs[0]!;
      expectShape<SessionOutput>(output, {
        text: O,
        toolCalls: O,
        endSession: O,
        turnIndex: R,
        turnCompleted: O,
        diagnosticInfo: O,
      });
      expectShape<{ id: string; tool: string; displayName: string; args: unknown }>(output.toolCalls?.toolCalls[0], {
        id: R,
        tool: R,
        displayName: R,
        args: R,
      });
    });
  });
});
