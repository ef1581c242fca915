import { Baton, BatonError, BatonWebhookVerificationError, verifyWebhook, type WebhookEvent } from '@baton/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constantTimeEqual, hmacSha256, hmacSha256Js } from '../../packages/client/src/webhooks/verify-webhook.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { WebhookReceiver, type Received } from '../webhooks/webhook-receiver.ts';

/**
 * The SDK's webhook verifier against the `standardwebhooks` library's signatures (what Baton signs
 * with), and `baton.webhooks` against a real Baton delivering to a real local receiver.
 */

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER_SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const NOW = new Date('2026-03-01T12:00:00.000Z');
const BODY = JSON.stringify({
  id: 'evt_1',
  type: 'tool_call.pending',
  timestamp: '2026-03-01T12:00:00.000Z',
  sequence: 7,
  data: { object: 'tool_call', id: 'call_1', state: 'pending' },
});

/** Headers as Baton sends them, signed by `standardwebhooks` with each of `secrets`. */
function signed(secrets: string[], at = NOW, id = 'evt_1', body = BODY): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}

async function refusal(promise: Promise<unknown>): Promise<BatonWebhookVerificationError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BatonWebhookVerificationError);
  return error as BatonWebhookVerificationError;
}

describe('verifyWebhook', () => {
  it('accepts what standardwebhooks signs, and returns the parsed event', async () => {
    const event = await verifyWebhook(BODY, signed([SECRET]), SECRET, { now: NOW });
    expect(event).toEqual(JSON.parse(BODY));
    expect(event.type).toBe('tool_call.pending');
    // Headers as a fetch Headers, in any case, or as Node arrays; a secret without its prefix.
    await expect(verifyWebhook(BODY, new Headers(signed([SECRET])), SECRET, { now: NOW })).resolves.toEqual(event);
    const shouting = Object.fromEntries(
      Object.entries(signed([SECRET])).map(([key, value]) => [key.toUpperCase(), value]),
    );
    await expect(verifyWebhook(BODY, shouting, SECRET.slice('whsec_'.length), { now: NOW })).resolves.toEqual(event);
    const arrays = { ...signed([SECRET]), 'webhook-signature': ['v1,AAAA', signed([SECRET])['webhook-signature']!] };
    await expect(verifyWebhook(BODY, arrays, SECRET, { now: NOW })).resolves.toEqual(event);
  });

  it('agrees with standardwebhooks on real time: a request signed just now verifies without `now`', async () => {
    const at = new Date();
    await expect(verifyWebhook(BODY, signed([SECRET], at), SECRET)).resolves.toMatchObject({ id: 'evt_1' });
    expect(() => new Webhook(SECRET).verify(BODY, signed([SECRET], at))).not.toThrow();
  });

  it('refuses a tampered body, id or timestamp, and a wrong secret', async () => {
    const headers = signed([SECRET]);
    const tampered = BODY.replace('"sequence":7', '"sequence":8');
    expect((await refusal(verifyWebhook(tampered, headers, SECRET, { now: NOW }))).reason).toBe(
      'no_matching_signature',
    );
    const otherId = { ...headers, 'webhook-id': 'evt_2' };
    expect((await refusal(verifyWebhook(BODY, otherId, SECRET, { now: NOW }))).reason).toBe('no_matching_signature');
    const moved = { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) };
    expect((await refusal(verifyWebhook(BODY, moved, SECRET, { now: NOW }))).reason).toBe('no_matching_signature');
    const wrong = await refusal(verifyWebhook(BODY, headers, OTHER_SECRET, { now: NOW }));
    expect(wrong.reason).toBe('no_matching_signature');
    expect(wrong.message).toMatch(/None of the 1 v1 signature matches the secret/);
    // A signature of another scheme version, or garbage, is no signature.
    const v1a = { ...headers, 'webhook-signature': headers['webhook-signature']!.replace('v1,', 'v1a,') };
    expect((await refusal(verifyWebhook(BODY, v1a, SECRET, { now: NOW }))).message).toMatch(/no v1 signature/);
    const junk = { ...headers, 'webhook-signature': 'v1,not*base64 v1, ,v1' };
    expect((await refusal(verifyWebhook(BODY, junk, SECRET, { now: NOW }))).reason).toBe('no_matching_signature');
    // The library agrees on every one of them.
    expect(() => new Webhook(SECRET).verify(tampered, headers)).toThrow();
  });

  it('refuses a stale or future timestamp, with the tolerance adjustable', async () => {
    const old = signed([SECRET], new Date(NOW.getTime() - 301_000));
    const stale = await refusal(verifyWebhook(BODY, old, SECRET, { now: NOW }));
    expect(stale.reason).toBe('timestamp_too_old');
    expect(stale.message).toMatch(/301 s old, more than the 300 s/);
    await expect(verifyWebhook(BODY, old, SECRET, { now: NOW, toleranceSeconds: 600 })).resolves.toBeTruthy();
    const edge = signed([SECRET], new Date(NOW.getTime() - 300_000));
    await expect(verifyWebhook(BODY, edge, SECRET, { now: NOW })).resolves.toBeTruthy();
    const ahead = signed([SECRET], new Date(NOW.getTime() + 301_000));
    expect((await refusal(verifyWebhook(BODY, ahead, SECRET, { now: NOW }))).reason).toBe('timestamp_too_new');
    const notANumber = { ...signed([SECRET]), 'webhook-timestamp': '2026-03-01T12:00:00Z' };
    expect((await refusal(verifyWebhook(BODY, notANumber, SECRET, { now: NOW }))).reason).toBe('invalid_timestamp');
  });

  it('says which header is missing', async () => {
    const { 'webhook-signature': _, ...unsigned } = signed([SECRET]);
    const missing = await refusal(verifyWebhook(BODY, unsigned, SECRET, { now: NOW }));
    expect(missing.reason).toBe('missing_header');
    expect(missing.message).toMatch(/no webhook-signature header/);
    const none = await refusal(verifyWebhook(BODY, {}, SECRET, { now: NOW }));
    expect(none.message).toMatch(/webhook-id, webhook-timestamp, webhook-signature headers/);
  });

  it('verifies a rotation header (two signatures) with either secret, or both', async () => {
    const headers = signed([SECRET, OTHER_SECRET]);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secrets of [SECRET, OTHER_SECRET, [SECRET, OTHER_SECRET], [OTHER_SECRET, SECRET]])
      await expect(verifyWebhook(BODY, headers, secrets, { now: NOW })).resolves.toMatchObject({ id: 'evt_1' });
    // After the grace, one signature: the receiver's two secrets still find it.
    await expect(
      verifyWebhook(BODY, signed([OTHER_SECRET]), [SECRET, OTHER_SECRET], { now: NOW }),
    ).resolves.toBeTruthy();
    const third = 'whsec_dGhpcmQgc2VjcmV0IG9mIHRoZSB0ZXN0cw==';
    expect((await refusal(verifyWebhook(BODY, headers, third, { now: NOW }))).reason).toBe('no_matching_signature');
  });

  it('throws a TypeError for a secret that is not one', async () => {
    await expect(verifyWebhook(BODY, signed([SECRET]), 'whsec_', { now: NOW })).rejects.toThrow(TypeError);
    await expect(verifyWebhook(BODY, signed([SECRET]), 'whsec_not base64!', { now: NOW })).rejects.toThrow(TypeError);
    await expect(verifyWebhook(BODY, signed([SECRET]), [], { now: NOW })).rejects.toThrow(TypeError);
  });

  it('computes the same HMAC with Web Crypto and without it, as standardwebhooks does', async () => {
    const key = Uint8Array.from(atob(SECRET.slice(6)), (char) => char.charCodeAt(0));
    const longKey = new Uint8Array(100).fill(7);
    for (const message of ['', 'a', 'x'.repeat(1000)]) {
      const bytes = new TextEncoder().encode(message);
      expect(hmacSha256Js(key, bytes)).toEqual(await hmacSha256(key, bytes));
      expect(hmacSha256Js(longKey, bytes)).toEqual(await hmacSha256(longKey, bytes));
    }
    const signature = new Webhook(SECRET).sign('evt_1', NOW, BODY).slice(3);
    const mine = hmacSha256Js(key, new TextEncoder().encode(`evt_1.${Math.floor(NOW.getTime() / 1000)}.${BODY}`));
    expect(btoa(String.fromCharCode(...mine))).toBe(signature);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1]))).toBe(false);
  });
});

describe('baton.webhooks against a real Baton', () => {
  let server: TestBaton;
  let baton: Baton;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    server = await startTestBaton(
      { egressAllow: ['127.0.0.1'] },
      { webhooks: { retryScheduleMs: [100, 100], timeoutMs: 1_000, pollIntervalMs: 50 } },
    );
    baton = new Baton({ baseURL: server.url, apiKey: server.key, retryDelayMs: 20 });
  });
  afterAll(async () => {
    await server?.close();
    for (const receiver of receivers) await receiver.close();
  });

  async function receiver(): Promise<WebhookReceiver> {
    const started = await new WebhookReceiver().start();
    receivers.push(started);
    return started;
  }

  /** A thread of the demo agent paused on its approval call. */
  async function pendingCall(): Promise<{ threadId: string; callId: string }> {
    const thread = await baton.threads.create({ agent: 'refund-desk' });
    const reply = await server.request('POST', `/v1/threads/${thread.id}/messages`, { content: 'refund of $20' });
    expect(reply.body.choices[0].finish_reason).toBe('tool_use');
    return { threadId: thread.id, callId: reply.body.choices[0].message.tool_calls[0].id as string };
  }

  const verify = (request: Received, secret: string | string[]) =>
    verifyWebhook<{ id: string; state: string }>(request.body, request.headers, secret);

  it('creates, lists, gets, updates, rotates and deletes endpoints; a real delivery verifies', async () => {
    const target = await receiver();
    const created = await baton.webhooks.create({
      url: target.url,
      event_types: ['tool_call.pending'],
      description: 'approvals to Slack',
    });
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      url: target.url,
      event_types: ['tool_call.pending'],
      enabled: true,
      description: 'approvals to Slack',
      secret: expect.stringMatching(/^whsec_/),
    });
    target.secrets = [created.secret];
    expect((await baton.webhooks.list()).data.map((endpoint) => endpoint.id)).toContain(created.id);
    const read = await baton.webhooks.get(created.id);
    expect(read).not.toHaveProperty('secret');
    expect(read.id).toBe(created.id);

    const { callId } = await pendingCall();
    await target.waitFor((received) => received.length >= 1);
    const request = target.received[0]!;
    const event: WebhookEvent<{ id: string; state: string }> = await verify(request, created.secret);
    expect(event).toMatchObject({ type: 'tool_call.pending', data: { id: callId, state: 'pending' } });
    expect(event.id).toBe(request.headers['webhook-id']);
    expect(request.verified).toEqual(event); // standardwebhooks read the same request the same way
    // Fetch-style headers (a serverless handler's Request) verify the same.
    const fetchHeaders = new Headers(Object.entries(request.headers) as [string, string][]);
    await expect(verifyWebhook(request.body, fetchHeaders, created.secret)).resolves.toEqual(event);
    expect((await refusal(verify(request, OTHER_SECRET))).reason).toBe('no_matching_signature');

    const disabled = await baton.webhooks.update(created.id, { enabled: false, description: null });
    expect(disabled).toMatchObject({ enabled: false, description: null, disabled_reason: null });
    await pendingCall();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(target.received).toHaveLength(1); // nothing sent to a disabled endpoint
    await baton.webhooks.update(created.id, { enabled: true });

    const rotated = await baton.webhooks.rotateSecret(created.id, { grace_seconds: 600 });
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.previous_secret_expires_at).toEqual(expect.any(String));
    await pendingCall();
    await target.waitFor((received) => received.length >= 2);
    const duringGrace = target.received[1]!;
    expect(String(duringGrace.headers['webhook-signature']).split(' ')).toHaveLength(2);
    await expect(verify(duringGrace, created.secret)).resolves.toMatchObject({ type: 'tool_call.pending' });
    await expect(verify(duringGrace, rotated.secret)).resolves.toMatchObject({ type: 'tool_call.pending' });

    const deleted = await baton.webhooks.delete(created.id);
    expect(deleted).toMatchObject({ id: created.id, deleted: true });
    const gone = await baton.webhooks.get(created.id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(BatonError);
    expect(gone).toMatchObject({ status: 404, code: 'webhook_endpoint_not_found' });
  });

  it('lists deliveries and re-sends one by hand: the same webhook-id, verified again', async () => {
    const target = await receiver();
    target.answer = () => 500;
    const created = await baton.webhooks.create({ url: target.url, event_types: ['tool_call.pending'] });
    target.secrets = [created.secret];
    await pendingCall();
    await target.waitFor((received) => received.length >= 3); // the first attempt and two retries
    let delivery = (await baton.webhooks.deliveries(created.id)).data[0]!;
    for (let tries = 0; delivery.status === 'pending' && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      delivery = (await baton.webhooks.deliveries(created.id)).data[0]!;
    }
    expect(delivery).toMatchObject({
      object: 'webhook_delivery',
      endpoint_id: created.id,
      event_type: 'tool_call.pending',
      status: 'failed',
      attempts: 3,
      last_response_code: 500,
      next_attempt_at: null,
    });
    target.answer = () => 200;
    const resent = await baton.webhooks.resend(created.id, delivery.id);
    expect(resent).toMatchObject({ id: delivery.id, status: 'pending', attempts: 0 });
    await target.waitFor((received) => received.length >= 4);
    const again = target.received[3]!;
    expect(again.headers['webhook-id']).toBe(delivery.event_id);
    expect(new Set(target.received.map((request) => request.body)).size).toBe(1);
    await expect(verify(again, created.secret)).resolves.toMatchObject({ id: delivery.event_id });
    const page = await baton.webhooks.deliveries(created.id, { limit: 1 });
    expect(page).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    const unknown = await baton.webhooks.resend(created.id, 'whdl_nope').catch((error: unknown) => error);
    expect(unknown).toMatchObject({ status: 404, code: 'webhook_delivery_not_found' });
    await baton.webhooks.delete(created.id);
  });

  it('refuses bad input through the SDK with the server’s codes', async () => {
    const bad = await baton.webhooks
      .create({ url: 'http://10.0.0.1/hook', event_types: ['turn.completed'] })
      .catch((error: unknown) => error);
    expect(bad).toMatchObject({ status: 422, code: 'webhook_url_not_allowed', param: 'url' });
    const grace = await baton.webhooks
      .rotateSecret('whep_nope', { grace_seconds: -1 })
      .catch((error: unknown) => error);
    expect(grace).toBeInstanceOf(BatonError);
    expect((grace as BatonError).status).toBe(400);
  });
});
