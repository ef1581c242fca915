import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBaton } from '../helpers/test-baton.ts';
import type { BrowserGlobals } from './browser-globals.ts';
import { pausedTurn, startConsoleBaton } from './console-fixtures.ts';
import { callRow, chromiumMissing, launchBrowser, openConsole, openInbox, signIn } from './console-harness.ts';

/** The approval flow of the console in a real browser against a real Baton. */
describe.skipIf(chromiumMissing)('console: approvals', () => {
  let baton: TestBaton;
  let browser: Browser;

  beforeAll(async () => {
    [baton, browser] = await Promise.all([startConsoleBaton(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await baton?.close();
  });

  it('refuses a bad key with the server message, keeps a good one for the tab, and signs out', async () => {
    const { page, context, problems } = await openConsole(browser, baton);
    await page.getByLabel('API key').fill('bk_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid API key' }).waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).sessionStorage.length)).toBe(0);

    await signIn(page);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).sessionStorage.length)).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a new approval live, approves it, and shows the completed conversation', async () => {
    const { page, context, problems } = await openInbox(browser, baton);
    await page.evaluate(() => ((globalThis as unknown as BrowserGlobals).sameDocument = true));

    const { thread, callId } = await pausedTurn(baton, 'refunds', 'Please refund order A-100');
    const row = callRow(page, callId);
    await row.waitFor();
    const text = await row.innerText();
    for (const expected of ['issue_refund', 'Approval', 'refunds', thread, 'A-100', 'just now'])
      expect(text).toContain(expected);
    // Arrived without a reload: the marker set before the turn is still there.
    expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).sameDocument)).toBe(true);

    await row.getByRole('link', { name: 'issue_refund' }).click();
    await page.getByRole('heading', { level: 1, name: 'issue_refund' }).waitFor();
    expect(await page.getByLabel('Arguments', { exact: true }).innerText()).toContain('"order_id": "A-100"');
    await page.locator('.transcript').getByText('Please refund order A-100').waitFor();

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Completed' }).waitFor();
    expect(await page.locator('.reply').innerText()).toContain('All done');
    // The transcript was re-read: the tool's result (run by Baton) and the assistant's reply.
    await page.locator('.transcript .message-assistant').filter({ hasText: 'All done' }).waitFor();
    expect(await page.locator('.transcript .tool-result').filter({ hasText: 'refunded' }).innerText()).toContain(
      'by Baton',
    );
    expect((await baton.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('completed');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('refuses a denial without a reason, then sends the reason to the model as an error result', async () => {
    const { page, context, problems } = await openInbox(browser, baton);
    const { thread, callId } = await pausedTurn(baton, 'refunds', 'Refund order A-100 please');
    await callRow(page, callId).getByRole('link', { name: 'issue_refund' }).click();

    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('alert').filter({ hasText: 'Write a reason to deny' }).waitFor();
    expect(await page.getByLabel('Reason (required to deny)').getAttribute('aria-invalid')).toBe('true');
    expect((await baton.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('pending');

    await page.getByLabel('Reason (required to deny)').fill('Order A-100 was refunded last week');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('heading', { name: 'Denied' }).waitFor();
    expect(await page.locator('.reply').innerText()).toContain('Could not finish');
    const result = page.locator('.transcript .tool-result.is-error');
    await result.filter({ hasText: 'refunded last week' }).waitFor();

    const messages = (await baton.request('GET', `/v1/threads/${thread}/messages`)).body.data as { content: unknown }[];
    const results = messages.flatMap((message) => (Array.isArray(message.content) ? message.content : [])) as {
      type: string;
      is_error?: boolean;
      content: unknown;
    }[];
    expect(
      results.find(
        (block) =>
          block.type === 'tool_result' &&
          block.is_error === true &&
          JSON.stringify(block.content).includes('refunded last week'),
      ),
    ).toBeDefined();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('drops a call resolved elsewhere from the inbox live, and shows the 409 of a late decision', async () => {
    const { page, context, problems } = await openInbox(browser, baton);
    const first = await pausedTurn(baton, 'refunds', 'refund one');
    const second = await pausedTurn(baton, 'refunds', 'refund two');
    await callRow(page, first.callId).waitFor();
    await callRow(page, second.callId).waitFor();

    expect((await baton.request('POST', `/v1/tool-calls/${first.callId}/decision`, { approve: true })).status).toBe(
      200,
    );
    await callRow(page, first.callId).waitFor({ state: 'detached' });
    expect(await callRow(page, second.callId).count()).toBe(1);

    await callRow(page, second.callId).getByRole('link', { name: 'issue_refund' }).click();
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    expect(
      (
        await baton.request('POST', `/v1/tool-calls/${second.callId}/decision`, {
          approve: false,
          reason: 'someone else',
        })
      ).status,
    ).toBe(200);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('alert').filter({ hasText: 'already decided' }).waitFor();
    expect(problems.filter((problem) => !problem.includes('409'))).toEqual([]);
    await context.close();
  });

  it('shows "reconnecting" when the stream drops, then resumes with Last-Event-ID and catches up', async () => {
    const { page, context, problems } = await openInbox(browser, baton);
    const first = await pausedTurn(baton, 'refunds', 'refund before the drop');
    await callRow(page, first.callId).waitFor();

    const resumeIds: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/v1/tool-calls/events')
        resumeIds.push(request.headers()['last-event-id']);
    });
    // Drop every connection, and keep the stream refused while things change on the server.
    await page.route('**/v1/tool-calls/events**', (route) => route.abort());
    baton.baton.app.server.closeAllConnections();
    await page.getByRole('status').filter({ hasText: 'Reconnecting' }).waitFor();
    const second = await pausedTurn(baton, 'refunds', 'refund during the drop');
    expect((await baton.request('POST', `/v1/tool-calls/${first.callId}/decision`, { approve: true })).status).toBe(
      200,
    );
    await page.unroute('**/v1/tool-calls/events**');

    await callRow(page, second.callId).waitFor();
    await callRow(page, first.callId).waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    expect(resumeIds.at(-1)).toMatch(/\|call_/);
    await baton.request('POST', `/v1/tool-calls/${second.callId}/decision`, { approve: false, reason: 'test over' });
    // The browser logs the cut stream and the refused retries; anything else is a real problem.
    expect(problems.filter((problem) => !/ERR_FAILED|ERR_INCOMPLETE_CHUNKED_ENCODING/.test(problem))).toEqual([]);
    await context.close();
  });

  it('approves with the keyboard alone: Tab to the call, Enter, Tab to Approve, Enter', async () => {
    const { page, context } = await openInbox(browser, baton);
    const { callId } = await pausedTurn(baton, 'refunds', 'refund by keyboard');
    await callRow(page, callId).waitFor();

    const tabUntil = async (matches: () => boolean, max = 40) => {
      for (let presses = 0; presses < max; presses += 1) {
        await page.keyboard.press('Tab');
        if (await page.evaluate(matches)) return;
      }
      throw new Error('Tab never reached the element');
    };
    // Functions run in the page: the id is passed through the row's attribute.
    await page.evaluate(
      (id) => (globalThis as unknown as BrowserGlobals).document.body.setAttribute('data-target-call', id),
      callId,
    );
    await tabUntil(() => {
      const { document } = globalThis as unknown as BrowserGlobals;
      const active = document.activeElement;
      return (
        active?.classList.contains('call-name') === true &&
        active.closest('li')?.getAttribute('data-call-id') === document.body.getAttribute('data-target-call')
      );
    });
    // The focused control is visibly marked.
    expect(
      await page.evaluate(() => {
        const { document, getComputedStyle } = globalThis as unknown as BrowserGlobals;
        return document.activeElement ? getComputedStyle(document.activeElement).outlineStyle : 'none';
      }),
    ).not.toBe('none');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'issue_refund' }).waitFor();
    await tabUntil(() => (globalThis as unknown as BrowserGlobals).document.activeElement?.textContent === 'Approve');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Completed' }).waitFor();
    expect((await baton.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('completed');
    await context.close();
  });
});
