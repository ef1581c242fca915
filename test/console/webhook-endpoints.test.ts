import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  graceSecondsFromHours,
  namesFromInput,
  WEBHOOK_EVENT_TYPES as CONSOLE_EVENT_TYPES,
} from '../../console/src/webhooks-fields.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/webhooks.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { WebhookReceiver } from '../webhooks/webhook-receiver.ts';
import type { BrowserGlobals } from './browser-globals.ts';
import { chromiumMissing, launchBrowser, openConsole, signIn } from './console-harness.ts';

/**
 * The console's webhook pages (issue 20): endpoints created, paused, rotated and deleted through
 * the UI of the built console, against a real Baton sending to a real local receiver (loopback
 * allowed through egress.allow), which verifies every delivery with the secrets the page showed.
 */

/**
 * Fast retries; an attempt hangs long enough to press Resend while it is under way; an endpoint
 * failing for a quarter second is disabled, which a single failure followed by a success never is.
 */
const WEBHOOKS = {
  retryScheduleMs: [100, 100, 100, 100, 100],
  timeoutMs: 3_000,
  pollIntervalMs: 50,
  disableAfterMs: 250,
};

describe('console webhook fields', () => {
  it('offers every event type the server sends, and no other', () => {
    expect(CONSOLE_EVENT_TYPES.map((entry) => entry.type)).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it('reads agent and tool names typed with commas, spaces or lines; an empty box means every one', () => {
    expect(namesFromInput('support, billing\nrefund-desk  support')).toEqual(['support', 'billing', 'refund-desk']);
    expect(namesFromInput(' ,  \n')).toBeUndefined();
  });

  it('turns grace hours into whole seconds within the API limit, and says what to type otherwise', () => {
    expect(graceSecondsFromHours('24')).toEqual({ seconds: 86_400 });
    expect(graceSecondsFromHours('0.5')).toEqual({ seconds: 1_800 });
    expect(graceSecondsFromHours('0')).toEqual({ seconds: 0 });
    expect(graceSecondsFromHours('168')).toEqual({ seconds: 604_800 });
    for (const bad of ['', '169', '-1', 'soon'])
      expect(graceSecondsFromHours(bad)).toEqual({ error: expect.stringContaining('from 0 (stops at once) to 168') });
  });
});

/** A description list as term → detail, the pairs a person reads side by side. */
async function factsOf(list: Locator): Promise<Record<string, string | undefined>> {
  const terms = await list.locator('dt').allInnerTexts();
  const details = await list.locator('dd').allInnerTexts();
  return Object.fromEntries(terms.map((term, index) => [term, details[index]]));
}

/** What has the focus now. The console moves it after rendering (an effect): tests poll for it. */
async function focusedText(page: Page): Promise<string | null> {
  return page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.activeElement?.textContent ?? null);
}

async function focusedId(page: Page): Promise<string | null> {
  return page.evaluate(
    () => (globalThis as unknown as BrowserGlobals).document.activeElement?.getAttribute('id') ?? null,
  );
}

describe.skipIf(chromiumMissing)('console: webhook endpoints', () => {
  let baton: TestBaton;
  let browser: Browser;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    [baton, browser] = await Promise.all([
      startTestBaton({ egressAllow: ['127.0.0.1'] }, { webhooks: WEBHOOKS }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await baton?.close();
    for (const receiver of receivers) await receiver.close();
  });

  async function receiver(): Promise<WebhookReceiver> {
    const started = await new WebhookReceiver().start();
    receivers.push(started);
    return started;
  }

  /** A turn of the demo agent that pauses on its client tool: one `tool_call.pending` event. */
  async function pendingCall(): Promise<string> {
    const thread = await baton.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const sent = await baton.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: 'refund of $20' });
    expect(sent.body.choices[0].finish_reason).toBe('tool_use');
    return thread.body.id as string;
  }

  async function openWebhooks(key?: string, viewport?: { width: number; height: number }) {
    const opened = await openConsole(browser, baton, viewport);
    await signIn(opened.page, key);
    await opened.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await opened.page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    return opened;
  }

  // One attempt hangs for 3 s on purpose: a longer timeout than the suite's, for a loaded machine.
  it('creates an endpoint and shows its secret once; disables, enables, rotates, resends a delivery and deletes it', async () => {
    const target = await receiver();
    const { page, context, problems } = await openWebhooks();
    await page.getByText('No webhook endpoints yet.').waitFor();

    // Create: one event type (which clears "every event type"), an agent filter, arguments included.
    const form = page.getByRole('form', { name: 'New webhook endpoint' });
    await form.getByLabel('URL').fill(target.url);
    await form.getByLabel('Description').fill('Ops pager');
    expect(await form.getByLabel('Every event type').isChecked()).toBe(true);
    await form.getByLabel('tool_call.pending').check();
    expect(await form.getByLabel('Every event type').isChecked()).toBe(false);
    await form.getByLabel('Only these agents').fill('refund-desk');
    await form.getByLabel('Include call arguments').check();
    await form.getByRole('button', { name: 'Create endpoint' }).click();

    const notice = page.getByRole('region', { name: `Signing secret of ${target.url}` });
    await notice.waitFor();
    await expect.poll(() => focusedText(page)).toBe(`Signing secret of ${target.url}`);
    expect(await notice.innerText()).toContain('Copy this secret now: it will not be shown again.');
    const firstSecret = await notice.getByLabel('Signing secret').inputValue();
    expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const listed = (await baton.request('GET', '/v1/webhook-endpoints')).body.data;
    expect(listed).toHaveLength(1);
    const endpoint = listed[0];
    expect(endpoint).toMatchObject({
      url: target.url,
      description: 'Ops pager',
      event_types: ['tool_call.pending'],
      agents: ['refund-desk'],
      tools: null,
      include_arguments: true,
      enabled: true,
    });
    const row = page.getByRole('list', { name: 'Webhook endpoints' }).locator(`li[data-endpoint-id="${endpoint.id}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('enabled');
    expect(await factsOf(row.locator('dl'))).toEqual({ Events: 'tool_call.pending', Agents: 'refund-desk' });
    // The form is empty again, ready for another endpoint.
    expect(await form.getByLabel('URL').inputValue()).toBe('');

    // Once: dismissed, or the page left and opened again, the secret is nowhere.
    await notice.getByRole('button', { name: 'I have stored the secret' }).click();
    expect(await page.getByLabel('Signing secret').count()).toBe(0);
    await row.getByRole('link', { name: target.url }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    await page.getByRole('link', { name: 'Webhooks', exact: true }).first().click();
    await row.waitFor();
    expect(await page.getByLabel('Signing secret').count()).toBe(0);

    // Disable and enable again.
    await row.getByRole('link', { name: target.url }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    const facts = page.locator('dl.facts');
    await facts.waitFor();
    expect(await factsOf(facts)).toMatchObject({
      URL: target.url,
      Description: 'Ops pager',
      Status: 'enabled',
      Events: 'tool_call.pending',
      Agents: 'refund-desk',
      Tools: 'every tool',
      'Call arguments': 'included',
      Id: endpoint.id,
    });
    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint disabled' }).waitFor();
    expect((await factsOf(facts)).Status).toBe('disabled');
    expect((await baton.request('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.enabled).toBe(false);
    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint enabled.' }).waitFor();
    expect((await factsOf(facts)).Status).toBe('enabled');
    expect((await baton.request('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.enabled).toBe(true);

    // Rotate: a grace period out of range is refused here; an hour is sent, and the new secret shown once.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const grace = page.getByLabel('Old secret keeps signing for (hours)');
    expect(await grace.inputValue()).toBe('24');
    await grace.fill('200');
    await page.getByRole('button', { name: 'Rotate now' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Enter how many hours the old secret keeps signing, from 0 (stops at once) to 168 (7 days).' })
      .waitFor();
    expect(await grace.getAttribute('aria-invalid')).toBe('true');
    expect(
      (await baton.request('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.previous_secret_expires_at,
    ).toBeNull();
    await grace.fill('1');
    const rotatedAt = Date.now();
    await page.getByRole('button', { name: 'Rotate now' }).click();
    const rotatedNotice = page.getByRole('region', { name: 'New signing secret' });
    await rotatedNotice.waitFor();
    await expect.poll(() => focusedText(page)).toBe('New signing secret');
    const secondSecret = await rotatedNotice.getByLabel('Signing secret').inputValue();
    expect(secondSecret).toMatch(/^whsec_/);
    expect(secondSecret).not.toBe(firstSecret);
    expect(await rotatedNotice.innerText()).toContain('The old secret signs beside it until');
    const rotated = (await baton.request('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body;
    const graceEnds = Date.parse(rotated.previous_secret_expires_at) - rotatedAt;
    expect(graceEnds).toBeGreaterThan(3_590_000);
    expect(graceEnds).toBeLessThan(3_610_000);
    expect(await factsOf(facts)).toHaveProperty('Old secret signs until');
    await rotatedNotice.getByRole('button', { name: 'I have stored the secret' }).click();

    // A delivery: its first attempt hangs, so Resend meets the attempt under way (409).
    target.secrets = [firstSecret, secondSecret];
    target.answer = (_, index) => (index === 0 ? 'hang' : 200);
    const threadId = await pendingCall();
    await target.waitFor((received) => received.length >= 1);
    const deliveries = page.getByRole('list', { name: 'Deliveries' });
    await page.getByRole('button', { name: 'Refresh deliveries' }).click();
    const delivery = deliveries.locator('li').first();
    await delivery.waitFor();
    const deliveryId = await delivery.getAttribute('data-delivery-id');
    expect(await delivery.getByRole('heading').innerText()).toBe('tool_call.pending');
    expect(await delivery.locator('.badge').innerText()).toBe('pending');
    expect(await factsOf(delivery.locator('dl'))).toMatchObject({ Thread: threadId });
    await delivery.getByRole('button', { name: /^Resend the tool_call.pending delivery/ }).click();
    await page
      .getByRole('alert')
      .filter({
        hasText:
          `Delivery '${deliveryId}' is being sent right now; its outcome shows in GET /v1/webhook-endpoints/${endpoint.id}/deliveries ` +
          'in a moment. Resend it once it has failed or succeeded.',
      })
      .waitFor();

    // The hung attempt times out, the retry succeeds: the row says so once refreshed.
    await target.waitFor((received) => received.length >= 2);
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh deliveries' }).click();
          await delivery.waitFor();
          return delivery.locator('.badge').innerText();
        },
        { timeout: 5_000 },
      )
      .toBe('succeeded');
    // The row may be drawn again by the refresh just clicked: its facts are read once it settles.
    await expect
      .poll(() => factsOf(delivery.locator('dl')), { timeout: 5_000 })
      .toMatchObject({ Attempts: '2', 'Last response': '200' });
    expect(await page.getByRole('alert').filter({ hasText: 'being sent right now' }).count()).toBe(0);

    // Resend: pending again at once, delivered again with the same webhook-id, signed with both secrets.
    await delivery.getByRole('button', { name: /^Resend/ }).click();
    await page.getByRole('status').filter({ hasText: 'The tool_call.pending delivery is sent again now.' }).waitFor();
    expect(await delivery.locator('.badge').innerText()).toBe('pending');
    expect(await factsOf(delivery.locator('dl'))).toMatchObject({ Attempts: '0' });
    await target.waitFor((received) => received.length >= 3);
    const [first, , third] = target.received;
    expect(third!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(third!.verifiedWith).toEqual([0, 1]);
    expect(third!.verified?.data).toMatchObject({ arguments: { action: 'refund', amount: 20 } });

    // Delete: a dismissed confirmation keeps it; an accepted one deletes it and returns to the list.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    expect((await baton.request('GET', `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(200);
    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    expect(question).toContain(`Delete the webhook endpoint ${target.url}?`);
    await page.getByText('No webhook endpoints yet.').waitFor();
    expect((await baton.request('GET', `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(404);

    // The browser logs the refused resend; anything else is a real problem.
    expect(problems.filter((problem) => !problem.includes('409'))).toEqual([]);
    await context.close();
  }, 60_000);

  it("shows the server's refusal of a private URL in the form's alert, and checks the form before sending", async () => {
    const { page, context, problems } = await openWebhooks();
    const form = page.getByRole('form', { name: 'New webhook endpoint' });
    const alert = form.getByRole('alert');
    const url = form.getByLabel('URL');

    await form.getByRole('button', { name: 'Create endpoint' }).click();
    expect(await alert.innerText()).toBe('Enter the URL Baton should send events to.');
    expect(await url.getAttribute('aria-invalid')).toBe('true');

    await url.fill('http://10.1.2.3/hook');
    await form.getByLabel('Every event type').uncheck();
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    expect(await alert.innerText()).toBe('Choose at least one event type, or every event type.');
    await expect.poll(() => focusedId(page)).toBe('webhook-event-all');
    await form.getByLabel('Every event type').check();

    const refused = await baton.request('POST', '/v1/webhook-endpoints', {
      url: 'http://10.1.2.3/hook',
      event_types: ['*'],
      include_arguments: false,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('webhook_url_not_allowed');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    await alert.filter({ hasText: refused.body.error.message }).waitFor();
    expect(await alert.innerText()).toBe(refused.body.error.message);
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => focusedId(page)).toBe('webhook-url');
    expect((await baton.request('GET', '/v1/webhook-endpoints')).body.data).toEqual([]);

    expect(problems.filter((problem) => !problem.includes('422'))).toEqual([]);
    await context.close();
  });

  it('shows an endpoint Baton disabled after failures, why and since when, and enables it again (on a phone)', async () => {
    const target = await receiver();
    target.answer = () => 500;
    const created = await baton.request('POST', '/v1/webhook-endpoints', {
      url: target.url,
      event_types: ['tool_call.pending'],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await pendingCall();
    await expect
      .poll(async () => (await baton.request('GET', `/v1/webhook-endpoints/${id}`)).body.enabled, { timeout: 5_000 })
      .toBe(false);
    const disabled = (await baton.request('GET', `/v1/webhook-endpoints/${id}`)).body;

    const { page, context, problems } = await openWebhooks(undefined, { width: 360, height: 740 });
    const overflow = () =>
      page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.documentElement.scrollWidth);
    const row = page.locator(`li[data-endpoint-id="${id}"]`);
    await row.waitFor();
    expect(await row.locator('.badge').innerText()).toBe('disabled by Baton');
    expect(await row.innerText()).toContain(`Disabled by Baton: ${disabled.disabled_reason}`);
    expect(await factsOf(row.locator('dl'))).toHaveProperty('Failing since');
    expect(await overflow()).toBeLessThanOrEqual(360);

    await row.getByRole('link', { name: target.url }).click();
    const deliveries = page.getByRole('list', { name: 'Deliveries' });
    const delivery = deliveries.locator('li').first();
    await delivery.waitFor();
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh deliveries' }).click();
        await delivery.waitFor();
        return delivery.locator('.badge').innerText();
      })
      .toBe('failed');
    // Its retry found the endpoint disabled: failed without being sent, as the API also says.
    const [listed] = (await baton.request('GET', `/v1/webhook-endpoints/${id}/deliveries`)).body.data;
    expect(listed).toMatchObject({ status: 'failed', last_error: 'not sent: the endpoint is disabled' });
    // Polled: the row can be drawn again (a refresh answering) between the badge and its facts.
    await expect.poll(() => factsOf(delivery.locator('dl'))).toMatchObject({ 'Last response': 'none' });
    await expect
      .poll(() => delivery.locator('.delivery-error').innerText())
      .toBe('Last error: not sent: the endpoint is disabled');
    expect(await overflow()).toBeLessThanOrEqual(360);

    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Endpoint enabled again; its past failures are forgotten.' })
      .waitFor();
    expect(await page.locator('.disabled-reason').count()).toBe(0);
    expect((await baton.request('GET', `/v1/webhook-endpoints/${id}`)).body).toMatchObject({
      enabled: true,
      disabled_reason: null,
      failing_since: null,
    });

    expect(problems).toEqual([]);
    await context.close();
    await baton.request('DELETE', `/v1/webhook-endpoints/${id}`);
  });

  it('explains to member and reader keys that only app admins manage webhooks', async () => {
    for (const role of ['member', 'reader'] as const) {
      const key = await baton.request('POST', '/v1/api-keys', { role, name: `console ${role}` });
      expect(key.status).toBe(201);
      const as = { authorization: `Bearer ${key.body.key}` };
      const refusal = async (path: string) => {
        const refused = await baton.request('GET', path, undefined, as);
        expect(refused.status).toBe(403);
        return refused.body.error.message as string;
      };
      const { page, context, problems } = await openWebhooks(key.body.key as string);
      const notice = page.getByRole('region', { name: 'Only app admins manage webhooks' });
      await notice.waitFor();
      const text = await notice.innerText();
      expect(text).toContain(`This key (${key.body.id}) has the role ${role}.`);
      expect(text).toContain(`The server answered: ${await refusal('/v1/webhook-endpoints')}`);
      expect(await page.getByRole('form', { name: 'New webhook endpoint' }).count()).toBe(0);
      expect(await page.getByRole('list', { name: 'Webhook endpoints' }).count()).toBe(0);

      // An endpoint's own page says the same.
      await page.evaluate(
        () => ((globalThis as unknown as BrowserGlobals).location.hash = '#/webhooks/whep_someone_elses'),
      );
      await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
      await notice.waitFor();
      expect(await notice.innerText()).toContain(
        `The server answered: ${await refusal('/v1/webhook-endpoints/whep_someone_elses')}`,
      );
      expect(problems.filter((problem) => !problem.includes('403'))).toEqual([]);
      await context.close();
    }
  });
});
