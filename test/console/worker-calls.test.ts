import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolCall, WorkerLease } from '../../console/src/api-types.ts';
import { attemptsLabel, lapsedLease, liveLease } from '../../console/src/worker-lease.ts';
import type { TestBaton } from '../helpers/test-baton.ts';
import { pausedTurn, startConsoleBaton } from './console-fixtures.ts';
import { callRow, chromiumMissing, launchBrowser, openConsole, signIn } from './console-harness.ts';

/**
 * Worker calls in the console (docs/tool-workers.md): who holds one and since when, or that it
 * waits for a worker, and no answer form while a live lease holds it. The ledger's worker fields
 * are given directly: the browser's reads of real pending calls are answered with those fields
 * laid over them, so the built console is tested without a worker fleet on the server.
 */

const SECOND = 1_000;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

/** A lease claimed 2½ minutes ago that runs 5½ more: "2 min ago" and "in 5 min" whatever the test's own pace. */
function heldLease(holder: string, keyId: string): WorkerLease {
  return { holder, key_id: keyId, claimed_at: at(-150 * SECOND), expires_at: at(330 * SECOND) };
}

/** A description list as term → detail, the pairs a person reads side by side. */
async function factsOf(list: Locator): Promise<Record<string, string | undefined>> {
  const terms = await list.locator('dt').allInnerTexts();
  const details = await list.locator('dd').allInnerTexts();
  return Object.fromEntries(terms.map((term, index) => [term, details[index]]));
}

type WorkerFields = Pick<ToolCall, 'executor' | 'attempts' | 'max_attempts' | 'lease'>;

describe('console worker lease logic', () => {
  const now = Date.parse('2026-03-01T12:00:00.000Z');
  const lease: WorkerLease = {
    holder: 'warehouse-1',
    key_id: 'key_w1',
    claimed_at: '2026-03-01T11:58:00.000Z',
    expires_at: '2026-03-01T12:01:00.000Z',
  };
  const call = (fields: Partial<ToolCall>) => ({ state: 'pending', executor: 'worker', ...fields }) as ToolCall;

  it('holds a pending worker call only until the lease expires', () => {
    expect(liveLease(call({ lease }), now)).toEqual(lease);
    expect(lapsedLease(call({ lease }), now)).toBeNull();
    const later = Date.parse(lease.expires_at) + 1;
    expect(liveLease(call({ lease }), later)).toBeNull();
    expect(lapsedLease(call({ lease }), later)).toEqual(lease);
    expect(liveLease(call({ lease: null }), now)).toBeNull();
    // A lease on a resolved call, or on a call the client runs, holds nothing.
    expect(liveLease(call({ lease, state: 'completed' }), now)).toBeNull();
    expect(liveLease(call({ lease, executor: 'client' }), now)).toBeNull();
    expect(liveLease(call({ lease, executor: undefined }), now)).toBeNull();
  });

  it('counts attempts of worker calls only', () => {
    expect(attemptsLabel(call({ attempts: 2, max_attempts: 3 }))).toBe('2 of 3');
    expect(attemptsLabel(call({ attempts: 2, max_attempts: 3, executor: 'client' }))).toBeNull();
    expect(attemptsLabel(call({}))).toBeNull();
  });
});

describe.skipIf(chromiumMissing)('console: worker calls', () => {
  let baton: TestBaton;
  let browser: Browser;
  /** Per call id, what the ledger's views of it carry in this test; other calls are the client's. */
  const worker = new Map<string, () => WorkerFields>();

  beforeAll(async () => {
    [baton, browser] = await Promise.all([startConsoleBaton(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await baton?.close();
  });

  const withWorkerFields = (entry: Record<string, unknown>) => ({
    executor: 'client',
    ...entry,
    ...(worker.get(entry.id as string)?.() ?? {}),
  });

  /** Lays the worker fields over every list and single read of the ledger the page makes. */
  async function patchLedgerReads(context: BrowserContext): Promise<void> {
    await context.route(
      (url) => url.pathname === '/v1/tool-calls' || /^\/v1\/tool-calls\/call_[^/]+$/.test(url.pathname),
      async (route) => {
        if (route.request().method() !== 'GET') return route.fallback();
        const response = await route.fetch();
        const body = (await response.json()) as Record<string, unknown>;
        const json =
          body.object === 'list'
            ? { ...body, data: (body.data as Record<string, unknown>[]).map(withWorkerFields) }
            : withWorkerFields(body);
        await route.fulfill({ response, json });
      },
    );
  }

  /**
   * Signed in on the inbox with the ledger reads patched. The live stream is left unanswered: its
   * look-back announces again the calls made in the last few seconds, without the worker fields,
   * and those would replace the patched rows. The inbox's first read lists every call anyway.
   */
  async function openPatchedInbox() {
    const opened = await openConsole(browser, baton);
    await patchLedgerReads(opened.context);
    await opened.context.route('**/v1/tool-calls/events**', () => {});
    await signIn(opened.page);
    return opened;
  }

  /**
   * Opens a call from its inbox row and waits until the page has read the call's tool: only then
   * would an answer form be drawn, so only then does its absence prove anything.
   */
  async function openCallPage(page: Page, callId: string, tool: string): Promise<void> {
    const toolRead = page.waitForResponse((response) => response.url().endsWith(`/v1/tool-calls/${callId}/tool`));
    await callRow(page, callId).getByRole('link', { name: tool }).click();
    await page.getByRole('heading', { level: 1, name: tool }).waitFor();
    await (await toolRead).finished();
    // The body is parsed and the page re-rendered in later tasks of the page: let those run.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
  }

  it('shows who holds a leased call and offers no answer form; an unleased one waits and can be answered', async () => {
    // The calls exist before the inbox opens, so every row comes from a (patched) list read.
    const leased = await pausedTurn(baton, 'stock-desk', 'Is SKU-7 in stock? (leased)');
    const waiting = await pausedTurn(baton, 'stock-desk', 'Is SKU-7 in stock? (waiting)');
    const ordinary = await pausedTurn(baton, 'stock-desk', 'Is SKU-7 in stock? (client)');
    worker.set(leased.callId, () => ({
      executor: 'worker',
      attempts: 2,
      max_attempts: 3,
      lease: heldLease('warehouse-1', 'key_w1'),
    }));
    worker.set(waiting.callId, () => ({ executor: 'worker', attempts: 1, max_attempts: 3, lease: null }));

    const { page, context, problems } = await openPatchedInbox();
    const leasedRow = callRow(page, leased.callId);
    await leasedRow.waitFor();
    expect(await leasedRow.innerText()).toContain('Worker call');
    const leasedFacts = await factsOf(leasedRow.locator('dl'));
    expect(leasedFacts).toMatchObject({
      'Held by': 'warehouse-1 (key key_w1)',
      Claimed: '2 min ago',
      'Lease ends': 'in 5 min',
      Attempts: '2 of 3',
    });
    expect(leasedFacts).not.toHaveProperty('Worker');

    const waitingRow = callRow(page, waiting.callId);
    expect(await waitingRow.innerText()).toContain('Worker call');
    const waitingFacts = await factsOf(waitingRow.locator('dl'));
    expect(waitingFacts).toMatchObject({ Worker: 'Waiting for a worker', Attempts: '1 of 3' });
    for (const absent of ['Held by', 'Claimed', 'Lease ends']) expect(waitingFacts).not.toHaveProperty(absent);

    const ordinaryRow = callRow(page, ordinary.callId);
    expect(await ordinaryRow.innerText()).not.toContain('Worker call');
    expect(Object.keys(await factsOf(ordinaryRow.locator('dl')))).toEqual(['Agent', 'Thread', 'Waiting since']);

    // The leased call: its facts and, where the form would be, who holds it (the tool was read, so
    // a form that ignored the lease would be on the page by now).
    await openCallPage(page, leased.callId, 'check_stock');
    expect(await factsOf(page.locator('dl.facts'))).toMatchObject({
      'Held by': 'warehouse-1 (key key_w1)',
      Claimed: '2 min ago',
      'Lease ends': 'in 5 min',
      Attempts: '2 of 3',
    });
    expect(await page.getByRole('button', { name: 'Send result' }).count()).toBe(0);
    expect(await page.getByLabel('quantity').count()).toBe(0);
    const answer = page.getByRole('region', { name: 'Answer' });
    expect(await answer.getByRole('status').innerText()).toBe(
      'The worker warehouse-1 holds this call (claimed 2 min ago, lease ends in 5 min). It can be answered here once no worker holds it.',
    );

    // The waiting call: the same page offers the form, as for any pending client call.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox' }).click();
    await openCallPage(page, waiting.callId, 'check_stock');
    expect(await factsOf(page.locator('dl.facts'))).toMatchObject({ Worker: 'Waiting for a worker' });
    await page.getByRole('button', { name: 'Send result' }).waitFor();
    await page.getByLabel('quantity').waitFor();
    expect(await page.getByText('holds this call').count()).toBe(0);

    expect(problems).toEqual([]);
    await context.close();
  });

  it('swaps the form for who holds the call when the server refuses an answer with tool_call_leased', async () => {
    const { callId } = await pausedTurn(baton, 'stock-desk', 'log a visit');
    let claimed = false;
    worker.set(callId, () => ({
      executor: 'worker',
      attempts: claimed ? 1 : 0,
      max_attempts: 3,
      lease: claimed ? heldLease('warehouse-2', 'key_w2') : null,
    }));

    const { page, context, problems } = await openPatchedInbox();
    await openCallPage(page, callId, 'log_visit');
    await page.getByLabel('Result (JSON, or plain text)').fill('{"logged": true}');
    // A worker claims the call while the person types; the server then refuses the person's answer.
    await context.route(`**/v1/tool-calls/${callId}/result`, async (route) => {
      claimed = true;
      await route.fulfill({
        status: 409,
        json: {
          error: {
            type: 'invalid_request_error',
            code: 'tool_call_leased',
            message: 'A worker holds this call under a lease.',
          },
        },
      });
    });
    await page.getByRole('button', { name: 'Send result' }).click();

    await page.getByRole('alert').filter({ hasText: 'A worker holds this call under a lease.' }).waitFor();
    await page.getByText('The worker warehouse-2 holds this call').waitFor();
    expect(await page.getByRole('button', { name: 'Send result' }).count()).toBe(0);
    expect(await factsOf(page.locator('dl.facts'))).toMatchObject({
      'Held by': 'warehouse-2 (key key_w2)',
      Attempts: '1 of 3',
    });
    expect((await baton.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('pending');
    // The browser logs the refused request; anything else is a real problem.
    expect(problems.filter((problem) => !problem.includes('409'))).toEqual([]);
    await context.close();
  });
});
