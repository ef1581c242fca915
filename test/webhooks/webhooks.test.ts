import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresUnavailable, type TestDatabase } from '../helpers/postgres-database.ts';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { WebhookReceiver } from './webhook-receiver.ts';

/**
 * Webhooks end to end (issue 20): a real Baton, a real local receiver verifying every request with
 * the `standardwebhooks` library, loopback allowed for it through `egress.allow`.
 */

const postgresReason = await postgresUnavailable();

const FAST = { retryScheduleMs: [100, 100, 100, 100], timeoutMs: 400, pollIntervalMs: 50 };

for (const flavor of ['sqlite', 'postgres'] as const) {
  describe.skipIf(flavor === 'postgres' && postgresReason !== null)(`webhooks on ${flavor}`, () => {
    let server: TestBaton;
    let database: TestDatabase | undefined;
    const receivers: WebhookReceiver[] = [];

    beforeAll(async () => {
      database = flavor === 'postgres' ? await createTestDatabase('baton_webhooks') : undefined;
      // Replicas on PostgreSQL share one secrets key; the signing secrets are stored under it.
      if (database) process.env.BATON_SECRETS_KEY = 'ab'.repeat(32);
      server = await startTestBaton(
        { egressAllow: ['127.0.0.1'] },
        {
          store: database
            ? { kind: 'postgres', connectionString: database.url }
            : { kind: 'sqlite', filename: ':memory:' },
          webhooks: FAST,
        },
      );
      if (database) delete process.env.BATON_SECRETS_KEY;
    });
    afterAll(async () => {
      await server?.close();
      for (const receiver of receivers) await receiver.close();
      await database?.drop();
    });

    async function receiver(): Promise<WebhookReceiver> {
      const started = await new WebhookReceiver().start();
      receivers.push(started);
      return started;
    }

    async function endpoint(target: WebhookReceiver, body: Record<string, unknown> = {}) {
      const created = await server.request('POST', '/v1/webhook-endpoints', { url: target.url, ...body });
      expect(created.status).toBe(201);
      expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      target.secrets = [created.body.secret];
      return created.body as { id: string; secret: string };
    }

    async function pendingCall() {
      const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
      const message = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
        content: 'refund of $20',
      });
      expect(message.body.choices[0].finish_reason).toBe('tool_use');
      return { threadId: thread.body.id as string, callId: message.body.choices[0].message.tool_calls[0].id as string };
    }

    it('sends every event once per change, in order per conversation, signed', async () => {
      const target = await receiver();
      const created = await endpoint(target, { include_arguments: true });
      const { threadId, callId } = await pendingCall();
      const answered = await server.request('POST', `/v1/tool-calls/${callId}/result`, {
        content: '{"approved": true, "approved_by": "ana@example.com"}',
      });
      expect(answered.status).toBe(200);
      await target.waitFor((received) => received.length >= 4);
      await new Promise((resolve) => setTimeout(resolve, 300)); // nothing more arrives
      const events = target.events().filter((event) => event.data.thread_id === threadId);
      expect(target.received.every((request) => request.verified !== undefined)).toBe(true);
      expect(events.map((event) => event.type)).toEqual([
        'tool_call.pending',
        'turn.requires_action',
        'tool_call.resolved',
        'turn.completed',
      ]);
      expect(new Set(events.map((event) => event.id)).size).toBe(4);
      const sequences = events.map((event) => event.sequence);
      expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
      const [pending, paused, resolved, completed] = events;
      expect(pending!.data).toMatchObject({
        object: 'tool_call',
        id: callId,
        state: 'pending',
        tool: 'request_approval',
        agent: 'refund-desk',
        arguments: { action: 'refund', amount: 20 },
        links: { tool_call: `/v1/tool-calls/${callId}`, thread: `/v1/threads/${threadId}` },
      });
      expect(paused!.data).toMatchObject({ object: 'turn', status: 'requires_action', agent: 'refund-desk' });
      expect(resolved!.data).toMatchObject({ id: callId, state: 'completed', submitted_by: expect.any(String) });
      expect(completed!.data).toMatchObject({ object: 'turn', status: 'completed', thread_id: threadId });
      expect(target.received[0]!.headers['webhook-id']).toBe(pending!.id);
      // The deliveries as the API lists them.
      const deliveries = await server.request('GET', `/v1/webhook-endpoints/${created.id}/deliveries`);
      expect(deliveries.status).toBe(200);
      expect(deliveries.body.data).toHaveLength(4);
      expect(deliveries.body.data[0]).toMatchObject({ status: 'succeeded', attempts: 1, last_response_code: 200 });
      await server.request('DELETE', `/v1/webhook-endpoints/${created.id}`);
    });

    it('sends response.completed for a background response only, linked to the response', async () => {
      const target = await receiver();
      const created = await endpoint(target, { event_types: ['response.completed', 'response.failed'] });
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });
      const foreground = await client.responses.create({ model: 'scripted:auto', input: 'Hello there' });
      expect(foreground.status).toBe('completed');
      const background = await client.responses.create({
        model: 'scripted:auto',
        input: 'Hello there',
        background: true,
      });
      expect(background.background).toBe(true);
      await target.waitFor((received) => received.length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the foreground one sends nothing
      expect(target.events()).toHaveLength(1);
      const [event] = target.events();
      expect(event!.type).toBe('response.completed');
      expect(event!.data).toMatchObject({
        object: 'response',
        id: background.id,
        status: 'completed',
        requires_action: false,
        links: { response: `/v1/responses/${background.id}` },
      });
      expect((await client.responses.retrieve(background.id)).status).toBe('completed');
      await server.request('DELETE', `/v1/webhook-endpoints/${created.id}`);
    });

    it('leaves the arguments out unless the endpoint asks, and filters by type and tool', async () => {
      const target = await receiver();
      const created = await endpoint(target, { event_types: ['tool_call.pending'], tools: ['request_approval'] });
      const other = await receiver();
      const otherEndpoint = await endpoint(other, { event_types: ['tool_call.pending'], tools: ['something_else'] });
      const { callId } = await pendingCall();
      await target.waitFor((received) => received.length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(target.events().map((event) => event.type)).toEqual(['tool_call.pending']);
      expect(target.events()[0]!.data.id).toBe(callId);
      expect(target.events()[0]!.data).not.toHaveProperty('arguments');
      expect(other.received).toHaveLength(0);
      await server.request('POST', `/v1/tool-calls/${callId}/result`, {
        content: '{"approved": false, "approved_by": "x@y.z"}',
      });
      await server.request('DELETE', `/v1/webhook-endpoints/${created.id}`);
      await server.request('DELETE', `/v1/webhook-endpoints/${otherEndpoint.id}`);
    });

    it('retries a receiver answering 500 three times, then 200: the same event, exactly as retried', async () => {
      const target = await receiver();
      target.answer = (_, index) => (index < 3 ? 500 : 200);
      const created = await endpoint(target, { event_types: ['tool_call.pending'] });
      const { callId } = await pendingCall();
      await target.waitFor((received) => received.length >= 4);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(target.received).toHaveLength(4);
      expect(new Set(target.received.map((request) => request.headers['webhook-id'])).size).toBe(1);
      expect(new Set(target.received.map((request) => request.body)).size).toBe(1);
      expect(target.events().every((event) => event.data.id === callId)).toBe(true);
      const deliveries = (await server.request('GET', `/v1/webhook-endpoints/${created.id}/deliveries`)).body.data;
      expect(deliveries[0]).toMatchObject({ status: 'succeeded', attempts: 4, last_response_code: 200 });
      await server.request('POST', `/v1/tool-calls/${callId}/result`, {
        content: '{"approved": false, "approved_by": "x@y.z"}',
      });
      await server.request('DELETE', `/v1/webhook-endpoints/${created.id}`);
    });

    it("keeps a conversation's events in order while an earlier one waits for its retry", async () => {
      const target = await receiver();
      // The first request fails: the conversation's later events wait until it is delivered.
      target.answer = (_, index) => (index === 0 ? 500 : 200);
      const created = await endpoint(target, { event_types: ['tool_call.pending', 'turn.requires_action'] });
      const { callId } = await pendingCall();
      await target.waitFor((received) => received.length >= 3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const types = target.received.map(
        (request, index) => `${JSON.parse(request.body).type}:${index === 0 ? 500 : 200}`,
      );
      expect(types).toEqual(['tool_call.pending:500', 'tool_call.pending:200', 'turn.requires_action:200']);
      await server.request('POST', `/v1/tool-calls/${callId}/result`, {
        content: '{"approved": false, "approved_by": "x@y.z"}',
      });
      await server.request('DELETE', `/v1/webhook-endpoints/${created.id}`);
    });

    it('times a hanging receiver out, retries it, and fails the delivery after the schedule', async () => {
      const target = await receiver();
      target.answer = (_, index) => (index === 0 ? 'hang' : 200);
      const failing = await receiver();
      failing.answer = () => 503;
      const created = await endpoint(target, { event_types: ['tool_call.pending'] });
      const failed = await endpoint(failing, { event_types: ['tool_call.pending'] });
      const { callId } = await pendingCall();
      await target.waitFor((received) => received.length >= 2, 5_000);
      await failing.waitFor((received) => received.length >= 5, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(failing.received).toHaveLength(5); // the first attempt and four retries
      const slow = (await server.request('GET', `/v1/webhook-endpoints/${created.id}/deliveries`)).body.data[0];
      expect(slow).toMatchObject({ status: 'succeeded', attempts: 2 });
      const gaveUp = (await server.request('GET', `/v1/webhook-endpoints/${failed.id}/deliveries`)).body.data[0];
      expect(gaveUp).toMatchObject({ status: 'failed', attempts: 5, last_response_code: 503, next_attempt_at: null });
      expect(gaveUp.last_error.length).toBeLessThan(300); // an excerpt, never the whole body
      // Re-sent by hand: pending again, then delivered.
      failing.answer = () => 204;
      const resent = await server.request('POST', `/v1/webhook-endpoints/${failed.id}/deliveries/${gaveUp.id}/resend`);
      expect(resent.status).toBe(202);
      expect(resent.body).toMatchObject({ status: 'pending', attempts: 0 });
      await failing.waitFor((received) => received.length >= 6, 5_000);
      await server.request('POST', `/v1/tool-calls/${callId}/result`, {
        content: '{"approved": false, "approved_by": "x@y.z"}',
      });
      await server.request('DELETE', `/v1/webhook-endpoints/${created.id}`);
      await server.request('DELETE', `/v1/webhook-endpoints/${failed.id}`);
    });

    it('signs with both secrets during a rotation grace, then with the new one only', async () => {
      const target = await receiver();
      const created = await endpoint(target, { event_types: ['tool_call.pending'] });
      const old = created.secret;
      const rotated = await server.request('POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`, {
        grace_seconds: 3600,
      });
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).not.toBe(old);
      expect(rotated.body.previous_secret_expires_at).toEqual(expect.any(String));
      target.secrets = [old, rotated.body.secret];
      const first = await pendingCall();
      await target.waitFor((received) => received.length >= 1);
      expect(target.received[0]!.verifiedWith).toEqual([0, 1]);
      expect(String(target.received[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
      const again = await server.request('POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`, {
        grace_seconds: 0,
      });
      target.secrets = [rotated.body.secret, again.body.secret];
      const second = await pendingCall();
      await target.waitFor((received) => received.length >= 2);
      expect(target.received[1]!.verifiedWith).toEqual([1]);
      for (const { callId } of [first, second])
        await server.request('POST', `/v1/tool-calls/${callId}/result`, {
          content: '{"approved": false, "approved_by": "x@y.z"}',
        });
      await server.request('DELETE', `/v1/webhook-endpoints/${created.id}`);
    });

    it('refuses bad input with a precise 4xx and stores nothing', async () => {
      const before = (await server.request('GET', '/v1/webhook-endpoints')).body.data.length;
      const cases: Array<[Record<string, unknown>, number, string, string]> = [
        [{ url: 'ftp://example.com/hook' }, 400, 'invalid_webhook_url', 'url'],
        [{ url: 'not a url' }, 400, 'invalid_webhook_url', 'url'],
        [{ url: 'http://10.1.2.3/hook' }, 422, 'webhook_url_not_allowed', 'url'],
        [{ url: 'http://[::1]:9/hook' }, 422, 'webhook_url_not_allowed', 'url'],
        [{ url: 'http://169.254.169.254/latest' }, 422, 'webhook_url_not_allowed', 'url'],
        [
          { url: 'https://hooks.example.com/x', event_types: ['turn.completed', 'turn.exploded'] },
          400,
          'unknown_webhook_event_type',
          'event_types[1]',
        ],
        [{ url: 'https://hooks.example.com/x', surprise: true }, 400, 'unknown_parameter', 'surprise'],
      ];
      for (const [body, status, code, param] of cases) {
        const answer = await server.request('POST', '/v1/webhook-endpoints', body);
        expect({ body, status: answer.status, code: answer.body.error?.code, param: answer.body.error?.param }).toEqual(
          {
            body,
            status,
            code,
            param,
          },
        );
      }
      expect((await server.request('GET', '/v1/webhook-endpoints')).body.data).toHaveLength(before);
    });

    it("keeps another app's endpoints out of reach, and lets only admins manage them", async () => {
      const target = await receiver();
      const created = await endpoint(target, { event_types: ['turn.completed'] });
      const app = await server.request('POST', '/v1/apps', { name: `shop-${flavor}-${Date.now()}` });
      const otherKey = app.body.api_key.key as string;
      const asOther = { authorization: `Bearer ${otherKey}` };
      for (const [method, path] of [
        ['GET', `/v1/webhook-endpoints/${created.id}`],
        ['PATCH', `/v1/webhook-endpoints/${created.id}`],
        ['DELETE', `/v1/webhook-endpoints/${created.id}`],
        ['POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`],
        ['GET', `/v1/webhook-endpoints/${created.id}/deliveries`],
      ] as const) {
        const answer = await server.request(
          method,
          path,
          method === 'GET' || method === 'DELETE' ? undefined : {},
          asOther,
        );
        expect([method, path, answer.status, answer.body.error?.code]).toEqual([
          method,
          path,
          404,
          'webhook_endpoint_not_found',
        ]);
      }
      expect((await server.request('GET', '/v1/webhook-endpoints', undefined, asOther)).body.data).toEqual([]);
      const member = await server.request('POST', '/v1/api-keys', { role: 'member' });
      const asMember = { authorization: `Bearer ${member.body.key}` };
      const refused = await server.request('GET', '/v1/webhook-endpoints', undefined, asMember);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('insufficient_role');
      expect((await server.request('GET', `/v1/webhook-endpoints/${created.id}`)).body.url).toBe(target.url);
      expect(ADMIN_KEY).toBeTruthy();
      await server.request('DELETE', `/v1/webhook-endpoints/${created.id}`);
    });
  });
}

// The disabling path on its own server (one process: on a shared PostgreSQL database another
// server's worker would take some of the attempts with its own five-day limit).
describe('webhooks: an endpoint failing for too long', () => {
  const receivers: WebhookReceiver[] = [];
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
  });

  it("disables an endpoint failing for too long and tells the app's other endpoints", async () => {
    // A server of its own: "too long" is a quarter of a second here, five days by default.
    const quick = await startTestBaton(
      { egressAllow: ['127.0.0.1'] },
      {
        store: { kind: 'sqlite', filename: ':memory:' },
        webhooks: { ...FAST, disableAfterMs: 250 },
      },
    );
    try {
      const failing = await new WebhookReceiver().start();
      receivers.push(failing);
      failing.answer = () => 500;
      const watcher = await new WebhookReceiver().start();
      receivers.push(watcher);
      const broken = await quick.request('POST', '/v1/webhook-endpoints', {
        url: failing.url,
        event_types: ['tool_call.pending'],
      });
      const told = await quick.request('POST', '/v1/webhook-endpoints', {
        url: watcher.url,
        event_types: ['endpoint.disabled'],
      });
      watcher.secrets = [told.body.secret];
      const thread = await quick.request('POST', '/v1/threads', { agent: 'refund-desk' });
      await quick.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: 'refund of $20' });
      await watcher.waitFor((received) => received.length >= 1, 5_000);
      const [event] = watcher.events();
      expect(event!.type).toBe('endpoint.disabled');
      expect(event!.data).toMatchObject({ object: 'webhook_endpoint', id: broken.body.id, enabled: false });
      expect(event!.data.disabled_reason).toMatch(/^every delivery failed since .* \(more than 250 ms\)$/);
      const shown = await quick.request('GET', `/v1/webhook-endpoints/${broken.body.id}`);
      expect(shown.body).toMatchObject({ enabled: false, disabled_reason: event!.data.disabled_reason });
      // Disabled: nothing more is sent to it.
      const attempts = failing.received.length;
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(failing.received).toHaveLength(attempts);
      await quick.request('DELETE', `/v1/webhook-endpoints/${broken.body.id}`);
      await quick.request('DELETE', `/v1/webhook-endpoints/${told.body.id}`);
    } finally {
      await quick.close();
    }
  });
});

// The worker's timer costs nothing on a server without webhooks: no transaction while no app has
// an enabled endpoint and nothing is left to send (new events wake it by their notice).
describe('webhooks: the delivery worker idle without endpoints', () => {
  it('runs no transaction on its ticks until an endpoint exists', async () => {
    const quiet = await startTestBaton(
      { egressAllow: ['127.0.0.1'] },
      { store: { kind: 'sqlite', filename: ':memory:' }, webhooks: { ...FAST, pollIntervalMs: 20 } },
    );
    const receiver = await new WebhookReceiver().start();
    try {
      const store = quiet.baton.store;
      const original = store.transaction.bind(store);
      let transactions = 0;
      store.transaction = ((work: Parameters<typeof original>[0]) => {
        transactions += 1;
        return original(work);
      }) as typeof store.transaction;
      await new Promise((resolve) => setTimeout(resolve, 400)); // the first passes find nothing
      transactions = 0;
      await new Promise((resolve) => setTimeout(resolve, 600)); // 30 ticks
      expect(transactions).toBe(0);
      const created = await quiet.request('POST', '/v1/webhook-endpoints', {
        url: receiver.url,
        event_types: ['tool_call.pending'],
      });
      expect(created.status).toBe(201);
      transactions = 0;
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(transactions).toBeGreaterThan(5); // an app has an endpoint: every tick passes again
    } finally {
      await quiet.close();
      await receiver.close();
    }
  });

  it('reads nothing on its ticks once nothing is pending, and a resend wakes it', async () => {
    const quiet = await startTestBaton(
      { egressAllow: ['127.0.0.1'] },
      { store: { kind: 'sqlite', filename: ':memory:' }, webhooks: { ...FAST, pollIntervalMs: 20 } },
    );
    const receiver = await new WebhookReceiver().start();
    try {
      const created = await quiet.request('POST', '/v1/webhook-endpoints', {
        url: receiver.url,
        event_types: ['tool_call.pending'],
      });
      const thread = await quiet.request('POST', '/v1/threads', { agent: 'refund-desk' });
      await quiet.request('POST', `/v1/threads/${thread.body.id}/messages`, {
        content: 'I need approval to process a $500 refund',
      });
      await receiver.waitFor((received) => received.length >= 1, 5_000);
      // No app has an enabled endpoint any more, and the delivery was sent: nothing is pending.
      await quiet.request('PATCH', `/v1/webhook-endpoints/${created.body.id}`, { enabled: false });
      const webhooks = quiet.baton.store.webhooks;
      const original = webhooks.hasPendingDeliveries.bind(webhooks);
      let looks = 0;
      webhooks.hasPendingDeliveries = () => {
        looks += 1;
        return original();
      };
      await new Promise((resolve) => setTimeout(resolve, 300)); // a tick finds nothing pending
      looks = 0;
      await new Promise((resolve) => setTimeout(resolve, 600)); // 30 ticks
      expect(looks).toBe(0);
      // A resend makes a delivery pending again: its notice wakes the worker, which settles it
      // (the endpoint is disabled, so it fails unsent), and the ticks look again meanwhile.
      const delivery = (await quiet.request('GET', `/v1/webhook-endpoints/${created.body.id}/deliveries`)).body.data[0];
      const resent = await quiet.request(
        'POST',
        `/v1/webhook-endpoints/${created.body.id}/deliveries/${delivery.id}/resend`,
      );
      expect(resent.body).toMatchObject({ status: 'pending' });
      const settled = async () =>
        (await quiet.request('GET', `/v1/webhook-endpoints/${created.body.id}/deliveries`)).body.data[0];
      const deadline = Date.now() + 5_000;
      while ((await settled()).status === 'pending' && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await settled()).toMatchObject({ status: 'failed', last_error: 'not sent: the endpoint is disabled' });
    } finally {
      await quiet.close();
      await receiver.close();
    }
  });
});
