import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ADMIN_KEY, type TestBaton } from '../helpers/test-baton.ts';

/**
 * Browser plumbing shared by the console tests: a system Chromium (never downloaded), the built
 * console, a signed-in page, and a record of page errors so a CSP violation or an uncaught
 * exception fails the test that caused it.
 */
export const CHROMIUM_PATH = process.env.BATON_CHROMIUM ?? '/usr/bin/chromium';
export const chromiumMissing = !existsSync(CHROMIUM_PATH);
if (chromiumMissing) {
  console.warn(
    `Skipping the console browser tests: no Chromium at ${CHROMIUM_PATH} (CI installs it; BATON_CHROMIUM names another binary).`,
  );
}

const DIST_INDEX = fileURLToPath(new URL('../../console/dist/index.html', import.meta.url));

/** The tests drive the built bundle, as Baton serves it; a missing build is an error, not a skip. */
export function requireBuiltConsole(): void {
  if (!existsSync(DIST_INDEX)) throw new Error('console/dist/index.html is missing: run npm run build');
}

export async function launchBrowser(): Promise<Browser> {
  requireBuiltConsole();
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
}

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Uncaught exceptions and console errors seen so far. */
  problems: string[];
}

export async function openConsole(
  browser: Browser,
  baton: TestBaton,
  viewport = { width: 1200, height: 800 },
): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(8_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A 401 on the bad-key check is expected and logged by the browser as a failed resource.
    if (message.type() === 'error' && !message.text().includes('401')) problems.push(`console: ${message.text()}`);
  });
  await page.goto(`${baton.url}/console/`);
  return { context, page, problems };
}

export async function signIn(page: Page, key = ADMIN_KEY): Promise<void> {
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
}

/** Signed in on the inbox, with the live stream connected (so later events cannot be missed). */
export async function openInbox(
  browser: Browser,
  baton: TestBaton,
  viewport?: { width: number; height: number },
): Promise<ConsolePage> {
  const opened = await openConsole(browser, baton, viewport);
  await signIn(opened.page);
  await opened.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  return opened;
}

/** The inbox row of one call, found by the id the row carries. */
export function callRow(page: Page, callId: string) {
  return page.locator(`li.call-row[data-call-id="${callId}"]`);
}
