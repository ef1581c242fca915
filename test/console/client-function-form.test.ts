import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBaton } from '../helpers/test-baton.ts';
import { pausedTurn, startConsoleBaton } from './console-fixtures.ts';
import { callRow, chromiumMissing, launchBrowser, openInbox } from './console-harness.ts';

/** Answering client functions: the form generated from a response schema, raw JSON, errors. */
describe.skipIf(chromiumMissing)('console: client function answers', () => {
  let baton: TestBaton;
  let browser: Browser;

  beforeAll(async () => {
    [baton, browser] = await Promise.all([startConsoleBaton(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await baton?.close();
  });

  async function openCall(page: Page, agent: string, text: string, tool: string): Promise<string> {
    const { callId } = await pausedTurn(baton, agent, text);
    await callRow(page, callId).getByRole('link', { name: tool }).click();
    await page.getByRole('heading', { level: 1, name: tool }).waitFor();
    return callId;
  }

  async function storedResult(callId: string): Promise<{ content: unknown; is_error: boolean; state: string }> {
    const call = (await baton.request('GET', `/v1/tool-calls/${callId}`)).body;
    return { content: call.result?.content, is_error: call.result?.is_error, state: call.state };
  }

  it('checks and sends the form generated from the response schema', async () => {
    const { page, context, problems } = await openInbox(browser, baton);
    const callId = await openCall(page, 'stock-desk', 'Is SKU-7 in stock?', 'check_stock');

    await page.getByRole('button', { name: 'Send result' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'quantity is required' });
    await alert.waitFor();
    expect(await alert.innerText()).toContain('warehouse is required');
    expect((await storedResult(callId)).state).toBe('pending');

    await page.getByLabel('quantity').fill('12.5');
    await page.getByLabel('warehouse').selectOption('south');
    await page.getByRole('button', { name: 'Send result' }).click();
    await page.getByRole('alert').filter({ hasText: 'quantity must be a whole number' }).waitFor();

    await page.getByLabel('quantity').fill('12');
    await page.getByLabel('in_stock').check();
    const location = page.getByRole('group', { name: 'location' });
    await location.getByLabel('aisle').fill('4B');
    const tags = page.getByRole('group', { name: 'tags' });
    await tags.getByRole('button', { name: 'Add tags item' }).click();
    await tags.getByRole('button', { name: 'Add tags item' }).click();
    await tags.getByRole('button', { name: 'Add tags item' }).click();
    await page.getByLabel('tags item 1', { exact: true }).fill('fragile');
    await page.getByLabel('tags item 2', { exact: true }).fill('spare');
    await page.getByLabel('tags item 3', { exact: true }).fill('heavy');
    await tags.getByRole('button', { name: 'Remove tags item 2' }).click();
    await page.getByRole('button', { name: 'Send result' }).click();

    await page.getByRole('heading', { name: 'Completed' }).waitFor();
    expect(await page.locator('.reply').innerText()).toContain('All done');
    const stored = await storedResult(callId);
    // Empty optional fields (note, shelf) are left out, numbers are numbers, the nested object and array are kept.
    expect(JSON.parse(stored.content as string)).toEqual({
      in_stock: true,
      quantity: 12,
      warehouse: 'south',
      location: { aisle: '4B' },
      tags: ['fragile', 'heavy'],
    });
    expect(stored.is_error).toBe(false);
    await page.locator('.transcript .message-assistant').filter({ hasText: 'All done' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('carries the form into the JSON editor, and offers only JSON when a tool has no response schema', async () => {
    const { page, context, problems } = await openInbox(browser, baton);
    const stockCall = await openCall(page, 'stock-desk', 'stock of SKU-7?', 'check_stock');
    await page.getByLabel('quantity').fill('3');
    await page.getByLabel('warehouse').selectOption('north');
    await page.getByRole('button', { name: 'Edit as JSON' }).click();
    const raw = page.getByLabel('Result (JSON, or plain text)');
    expect(JSON.parse(await raw.inputValue())).toEqual({ in_stock: false, quantity: 3, warehouse: 'north' });
    await raw.fill('{"in_stock": false, "quantity": 3, "warehouse": "north", "note": "counted twice"}');
    await page.getByRole('button', { name: 'Send result' }).click();
    await page.getByRole('heading', { name: 'Completed' }).waitFor();
    expect(JSON.parse((await storedResult(stockCall)).content as string)).toMatchObject({ note: 'counted twice' });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox' }).click();
    const visitCall = await openCall(page, 'stock-desk', 'log a visit', 'log_visit');
    await page.getByText('This tool declares no response schema').waitFor();
    expect(await page.getByRole('button', { name: 'Edit as JSON' }).count()).toBe(0);
    await page.getByLabel('Result (JSON, or plain text)').fill('{"logged": true, "by": "lee@example.com"}');
    await page.getByRole('button', { name: 'Send result' }).click();
    await page.locator('.reply').filter({ hasText: 'lee@example.com' }).waitFor();
    expect(JSON.parse((await storedResult(visitCall)).content as string)).toEqual({
      logged: true,
      by: 'lee@example.com',
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("builds the form from a CES clientFunction's response schema and sends an error instead when asked", async () => {
    const { page, context, problems } = await openInbox(browser, baton);
    const boxesCall = await openCall(page, 'dock', 'how many boxes at dock D2?', 'count_boxes');
    await page.getByRole('spinbutton', { name: 'boxes (required)' }).waitFor();
    await page.getByRole('checkbox', { name: 'damaged' }).waitFor();

    await page.getByLabel('Send as an error').check();
    expect(await page.getByRole('spinbutton', { name: 'boxes' }).count()).toBe(0);
    await page.getByLabel('Error message').fill('The dock scanner is offline');
    await page.getByRole('button', { name: 'Send error' }).click();
    await page.locator('.reply').filter({ hasText: 'Could not finish' }).waitFor();
    const stored = await storedResult(boxesCall);
    expect(stored).toMatchObject({ is_error: true });
    expect(JSON.stringify(stored.content)).toContain('scanner is offline');
    await page.locator('.transcript .tool-result.is-error').filter({ hasText: 'scanner is offline' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
