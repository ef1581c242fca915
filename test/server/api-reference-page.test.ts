import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

const CHROMIUM_PATH = process.env.BATON_CHROMIUM ?? '/usr/bin/chromium';
const chromiumMissing = !existsSync(CHROMIUM_PATH);
if (chromiumMissing) {
  console.warn(
    `Skipping the API reference page test: no Chromium at ${CHROMIUM_PATH} (CI installs it; BATON_CHROMIUM names another binary).`,
  );
}

/** `/docs` in a real browser: the page renders the document from this server alone. */
describe.skipIf(chromiumMissing)('GET /docs: the API reference page', () => {
  let server: TestBaton;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startTestBaton(),
      chromium.launch({
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders the Threads operations without a key, and no request leaves this server', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const origin = new URL(server.url).origin;
    const elsewhere: string[] = [];
    const problems: string[] = [];
    // Anything not for this server is recorded and refused, so the test cannot pass by reaching out.
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    const fetched: string[] = [];
    page.on('request', (request) => fetched.push(request.url()));

    const response = await page.goto(`${server.url}/docs`);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${server.url}/docs/`);
    await page.getByRole('heading', { name: 'Baton API' }).first().waitFor();
    await page.getByText('Create a thread').first().waitFor();
    await page.getByText('Send a message or tool results').first().waitFor();
    const text = await page.locator('body').innerText();
    for (const expected of ['Threads', 'Ledger', 'Chat Completions', 'CES sessions']) expect(text).toContain(expected);
    // Nothing that would call Scalar's services is offered.
    expect(text).not.toContain('Ask AI');

    expect(fetched).toContain(`${server.url}/openapi.json`);
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
