import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceApiDocument } from '../helpers/price-api-document.ts';
import { ManualClock, type TestBaton } from '../helpers/test-baton.ts';
import type { BrowserGlobals } from './browser-globals.ts';
import { APP, pausedTurn, startConsoleBaton } from './console-fixtures.ts';
import { callRow, chromiumMissing, launchBrowser, openInbox } from './console-harness.ts';

// The README's screenshot is rewritten only on request (UPDATE_SCREENSHOTS=1) or when missing,
// so a test run leaves the working tree clean; otherwise it goes to a scratch file.
const README_SCREENSHOT = fileURLToPath(new URL('../../docs/console-inbox.png', import.meta.url));
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOTS === '1' || !existsSync(README_SCREENSHOT)
    ? README_SCREENSHOT
    : join(tmpdir(), `baton-console-inbox-${process.pid}.png`);

/**
 * Filters, the list pages and the phone layout. The server's clock is moved by hand so the
 * pending calls have real ages: one from two hours ago, one from ten minutes ago, one new.
 */
describe.skipIf(chromiumMissing)('console: filters, lists and small screens', () => {
  let baton: TestBaton;
  let browser: Browser;
  const clock = new ManualClock(new Date(Date.now() - 2 * 3_600_000));
  const calls: Record<'old' | 'recent' | 'fresh' | 'approved', { thread: string; callId: string }> = {} as never;

  beforeAll(async () => {
    [baton, browser] = await Promise.all([startConsoleBaton({ clock }), launchBrowser()]);
    calls.approved = await pausedTurn(baton, 'refunds', 'Please refund order A-100');
    expect(
      (await baton.request('POST', `/v1/tool-calls/${calls.approved.callId}/decision`, { approve: true })).status,
    ).toBe(200);
    calls.old = await pausedTurn(baton, 'refunds', 'Please refund order A-100');
    clock.advance(110 * 60);
    calls.recent = await pausedTurn(baton, 'stock-desk', 'Is SKU-7 in stock?');
    clock.advance(10 * 60);
    calls.fresh = await pausedTurn(baton, 'refund-desk', 'I need approval to process a $500 refund');
    const toolset = await baton.request('POST', `/v1/${APP}/toolsets?toolsetId=prices`, {
      displayName: 'Prices',
      openApiToolset: { openApiSchema: priceApiDocument('https://prices.example.com') },
    });
    expect(toolset.status, JSON.stringify(toolset.body)).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await baton?.close();
  });

  const visibleCalls = (page: Page) =>
    page.locator('li.call-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-call-id')));
  /** Waits until the inbox shows exactly these calls (the list is re-read after each filter change). */
  const expectCalls = async (page: Page, ids: string[]) => {
    await expect.poll(() => visibleCalls(page), { timeout: 5_000 }).toEqual(ids);
  };

  it('shows ages, takes the README screenshot, and filters by agent, tool and age through the server', async () => {
    const { page, context, problems } = await openInbox(browser, baton, { width: 1200, height: 800 });
    const listQueries: URLSearchParams[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/v1/tool-calls') listQueries.push(url.searchParams);
    });
    await expectCalls(page, [calls.fresh.callId, calls.recent.callId, calls.old.callId]);
    expect(await callRow(page, calls.old.callId).innerText()).toContain('2 h ago');
    expect(await callRow(page, calls.recent.callId).innerText()).toContain('10 min ago');
    mkdirSync(fileURLToPath(new URL('../../docs/', import.meta.url)), { recursive: true });
    const shot = await page.screenshot({ path: SCREENSHOT });
    expect(shot.subarray(1, 4).toString()).toBe('PNG');
    if (SCREENSHOT !== README_SCREENSHOT) rmSync(SCREENSHOT, { force: true });

    await page.getByLabel('Agent', { exact: true }).selectOption('refunds');
    await expectCalls(page, [calls.old.callId]);
    expect(listQueries.at(-1)?.get('agent')).toBe('refunds');
    expect(listQueries.at(-1)?.get('state')).toBe('pending');
    // The filter lives in the address: a reload keeps it.
    expect(page.url()).toContain('#/inbox?agent=refunds');
    await page.reload();
    await expectCalls(page, [calls.old.callId]);
    expect(await page.getByLabel('Agent', { exact: true }).inputValue()).toBe('refunds');
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();

    // Live updates respect the filter: another agent's new call stays out, this agent's comes in.
    const other = await pausedTurn(baton, 'stock-desk', 'stock again?');
    const mine = await pausedTurn(baton, 'refunds', 'refund order A-100 again');
    await expectCalls(page, [mine.callId, calls.old.callId]);
    expect(await callRow(page, other.callId).count()).toBe(0);
    for (const call of [other, mine]) await baton.request('POST', `/v1/threads/${call.thread}/cancel`, {});
    await expectCalls(page, [calls.old.callId]);

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Tool', { exact: true }).fill('check_stock');
    await page.getByLabel('Tool', { exact: true }).press('Enter');
    await expectCalls(page, [calls.recent.callId]);
    expect(listQueries.at(-1)?.get('tool')).toBe('check_stock');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Age', { exact: true }).selectOption('1h');
    await expectCalls(page, [calls.old.callId]);
    const cutoff = Date.parse(listQueries.at(-1)?.get('created_before') ?? '');
    expect(Math.abs(cutoff - (Date.now() - 3_600_000))).toBeLessThan(60_000);
    await page.getByLabel('Age', { exact: true }).selectOption('5m');
    await expectCalls(page, [calls.recent.callId, calls.old.callId]);
    await page.getByLabel('Age', { exact: true }).selectOption('');
    await expectCalls(page, [calls.fresh.callId, calls.recent.callId, calls.old.callId]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists agents, tools, toolsets and threads, and shows a transcript with the calls Baton ran', async () => {
    const { page, context, problems } = await openInbox(browser, baton);
    const nav = page.getByRole('navigation', { name: 'Main' });

    await nav.getByRole('link', { name: 'Agents' }).click();
    const agents = page.getByRole('list', { name: 'Agents' });
    for (const name of ['refund-desk', 'stock-desk', 'refunds', 'dock'])
      await agents.getByRole('heading', { name, exact: true }).waitFor();
    expect(await agents.locator('li').filter({ hasText: 'stock-desk' }).innerText()).toContain('check_stock');

    await nav.getByRole('link', { name: 'Tools' }).click();
    const refundTool = page.getByRole('list', { name: 'Tools' }).locator('li').filter({ hasText: 'issue_refund' });
    await refundTool.waitFor();
    expect(await refundTool.innerText()).toContain('requires approval');
    expect(
      await page.getByRole('list', { name: 'Tools' }).locator('li').filter({ hasText: 'count_boxes' }).innerText(),
    ).toContain('Client function');
    expect(
      await page.getByRole('list', { name: 'Toolsets' }).locator('li').filter({ hasText: 'Prices' }).innerText(),
    ).toContain('OpenAPI toolset');

    await nav.getByRole('link', { name: 'Threads' }).click();
    await page.getByLabel('Agent', { exact: true }).selectOption('refunds');
    const threads = page.getByRole('list', { name: 'Threads' });
    await threads.getByRole('link', { name: calls.approved.thread }).waitFor();
    await expect
      .poll(() => threads.locator('li').allInnerTexts())
      .toSatisfy((rows: string[]) => rows.every((row) => row.includes('refunds')));
    await threads.getByRole('link', { name: calls.approved.thread }).click();

    await page.getByRole('heading', { level: 1, name: 'Thread' }).waitFor();
    const transcript = page.locator('.transcript');
    await transcript.getByText('Please refund order A-100').waitFor();
    expect(await transcript.locator('.tool-call').first().innerText()).toMatch(
      /issue_refund[\s\S]*run by Baton[\s\S]*"order_id": "A-100"/,
    );
    expect(await transcript.locator('.tool-result').first().innerText()).toMatch(/by Baton[\s\S]*refunded/);
    await transcript.locator('.message-assistant').filter({ hasText: 'All done' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('fits a 360 px wide screen on every page, in one column', async () => {
    const { page, context, problems } = await openInbox(browser, baton, { width: 360, height: 740 });
    const overflow = () =>
      page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.documentElement.scrollWidth);
    await callRow(page, calls.old.callId).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(360);
    const agentBox = await page.getByLabel('Agent', { exact: true }).boundingBox();
    const toolBox = await page.getByLabel('Tool', { exact: true }).boundingBox();
    expect(toolBox?.x).toBe(agentBox?.x);
    expect(toolBox?.y ?? 0).toBeGreaterThan(agentBox?.y ?? 0);

    const pages: [string, string][] = [
      [`#/calls/${calls.old.callId}`, 'Approve'],
      [`#/calls/${calls.recent.callId}`, 'Send result'],
      ['#/threads', 'Threads'],
      [`#/threads/${calls.approved.thread}`, 'Transcript'],
      ['#/agents', 'Agents'],
      ['#/tools', 'Toolsets'],
    ];
    for (const [hash, landmark] of pages) {
      await page.evaluate((target) => ((globalThis as unknown as BrowserGlobals).location.hash = target), hash);
      await page.getByText(landmark, { exact: true }).first().waitFor();
      await page.waitForLoadState('networkidle').catch(() => {});
      expect(await overflow(), hash).toBeLessThanOrEqual(360);
    }
    expect(problems).toEqual([]);
    await context.close();
  });
});
