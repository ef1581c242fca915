import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiExample, type UiExample } from '../../examples/browser-ui-action/server.ts';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/**
 * The examples in examples/ are documentation that must keep working: each runs against a real
 * Baton (random port, in-memory SQLite, the demo agent) exactly as a reader would run it.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHROMIUM_PATH = process.env.BATON_CHROMIUM ?? '/usr/bin/chromium';
const chromiumMissing = !existsSync(CHROMIUM_PATH);
if (chromiumMissing)
  console.warn(
    `Skipping the browser example test: no Chromium at ${CHROMIUM_PATH} (CI installs it; BATON_CHROMIUM names another binary).`,
  );

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let server: TestBaton;
beforeAll(async () => {
  server = await startTestBaton();
});
afterAll(async () => server?.close());

/** `node --import tsx examples/<file> …args` with the test Baton's URL and key (unless `env` removes them). */
function runExample(file: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    BATON_URL: server.url,
    BATON_API_KEY: ADMIN_KEY,
    APPROVE: undefined,
    ...env,
  };
  for (const [name, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[name];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', `examples/${file}`, ...args],
      { cwd: ROOT, env: childEnv, timeout: 15_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      },
    );
  });
}

describe('examples/refund-approval.ts', () => {
  it('--yes: the call pauses the turn, is approved as manager@company.com, and the answer is printed', async () => {
    const run = await runExample('refund-approval.ts', ['--yes']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('tool call: request_approval({"action":"refund","amount":500');
    expect(run.stdout).toContain('-> {"approved":true,"approved_by":"manager@company.com"}');
    expect(run.stdout).toContain(
      'Here is the tool result:\n- request_approval: approved: true, approved_by: manager@company.com',
    );
  });

  it('APPROVE=yes works the same; without a terminal or a key it refuses before starting a conversation', async () => {
    const before = (await server.request('GET', '/v1/threads?agent=refund-desk&limit=100')).body.data.length as number;
    const [env, noTerminal, noKey] = await Promise.all([
      runExample('refund-approval.ts', [], { APPROVE: 'yes' }),
      runExample('refund-approval.ts'),
      runExample('refund-approval.ts', ['--yes'], { BATON_API_KEY: undefined }),
    ]);
    expect(env.code).toBe(0);
    expect(env.stdout).toContain('approved_by: manager@company.com');
    expect(noTerminal).toMatchObject({ code: 1, stdout: '' });
    expect(noTerminal.stderr).toContain('pass --yes (or set APPROVE=yes)');
    expect(noKey).toMatchObject({ code: 1, stdout: '' });
    expect(noKey.stderr).toContain('Set BATON_API_KEY');
    expect((await server.request('GET', '/v1/threads?agent=refund-desk&limit=100')).body.data).toHaveLength(before + 1);
  });
});

describe('examples/inventory-lookup.ts', () => {
  it('creates inventory-desk, answers two parallel calls from the SQLite table in one round, prints calls and answer', async () => {
    const run = await runExample('inventory-lookup.ts');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('2 tool call(s) in 1 round(s):');
    expect(run.stdout).toContain(
      'check_inventory({"product_name":"Trail Runner","colour":"red"}) -> ' +
        '{"product":"Trail Runner","colour":"red","in_stock":47,"by_warehouse":{"Lisbon":42,"Porto":5}}',
    );
    expect(run.stdout).toContain(
      'check_inventory({"product_name":"City Boot","colour":"black"}) -> {"product":"City Boot","colour":"black","in_stock":17,"by_warehouse":{"Porto":17}}',
    );
    // 47 = 42 + 5: summed by the handler's query over the seeded rows, not written anywhere in the request.
    expect(run.stdout).toContain(
      'Here are the 2 tool results:\n- check_inventory: product: Trail Runner, colour: red, in_stock: 47',
    );

    const agent = (await server.request('GET', '/v1/agents/inventory-desk')).body;
    expect(agent.tools[0]).toMatchObject({
      name: 'check_inventory',
      response_schema: { required: ['product', 'in_stock'] },
    });
    // On the server: one assistant message with both calls, and both results in ONE message.
    const thread = (await server.request('GET', '/v1/threads?agent=inventory-desk')).body.data[0];
    const messages = (await server.request('GET', `/v1/threads/${thread.id}/messages`)).body.data as {
      role: string;
      content: unknown;
      tool_calls?: unknown[];
    }[];
    expect(messages.filter((message) => message.tool_calls?.length === 2)).toHaveLength(1);
    const results = messages.filter(
      (message) => Array.isArray(message.content) && (message.content as { type: string }[])[0]?.type === 'tool_result',
    );
    expect(results).toHaveLength(1);
    expect(results[0]!.content).toHaveLength(2);
  });

  it('a product the table lacks becomes an error result the agent reports', async () => {
    const run = await runExample('inventory-lookup.ts', ['Do you have the Moon Slipper in blue?']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'check_inventory({"product_name":"Moon Slipper","colour":"blue"}) -> No product named Moon Slipper in blue.',
    );
    expect(run.stdout).toContain('The tool check_inventory reported an error: No product named Moon Slipper in blue.');
  });
});

describe.skipIf(chromiumMissing)('examples/browser-ui-action', () => {
  let ui: UiExample;
  let browser: Browser;
  beforeAll(async () => {
    if (!existsSync(new URL('../../packages/client/dist/index.js', import.meta.url)))
      throw new Error('packages/client/dist is missing: run npm run build');
    ui = await startUiExample({ batonUrl: server.url, apiKey: ADMIN_KEY, port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
  });
  afterAll(async () => {
    await browser?.close();
    await ui?.close();
  });

  it('the page runs the tools: dark theme, highlighted card, banner, then the agent’s reply; errors come back as results', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(8_000);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => message.type() === 'error' && problems.push(`console: ${message.text()}`));
    const requests: { url: string; authorization: string | undefined }[] = [];
    page.on('request', (request) =>
      requests.push({ url: request.url(), authorization: request.headers().authorization }),
    );
    const bodies: string[] = [];
    page.on('response', async (response) =>
      bodies.push(JSON.stringify(response.headers()) + (await response.text().catch(() => ''))),
    );

    await page.goto(ui.url);
    await page
      .getByLabel('Message')
      .fill('Switch to dark mode, highlight CB-200 and show a banner saying "Free shipping today"');
    await page.getByLabel('Message').press('Enter');
    const transcript = page.locator('#transcript');
    await transcript.locator('li.agent').waitFor();

    expect(await page.locator('html').getAttribute('class')).toBe('dark');
    expect(await page.locator('#banner').isVisible()).toBe(true);
    expect(await page.locator('#banner').textContent()).toBe('Free shipping today');
    expect(await page.locator('.product.highlighted').getAttribute('data-sku')).toBe('CB-200');
    const lines = await transcript.locator('li').allTextContents();
    expect(lines).toEqual([
      'Switch to dark mode, highlight CB-200 and show a banner saying "Free shipping today"',
      '✓ set_theme({"mode":"dark"}) → {"theme":"dark"}',
      '✓ highlight_product({"sku":"CB-200"}) → {"highlighted":"CB-200","product":"City Boot"}',
      '✓ show_banner({"text":"Free shipping today"}) → {"banner":"Free shipping today"}',
      'Here are the 3 tool results:\n- set_theme: theme: dark\n- highlight_product: highlighted: ' +
        'CB-200, product: City Boot\n- show_banner: banner: Free shipping today',
    ]);

    // Same thread, a card the page does not have: the handler's throw is sent as an error result.
    await page.getByLabel('Message').fill('Highlight the product ZZ-999');
    await page.getByLabel('Message').press('Enter');
    await transcript.locator('li.agent').nth(1).waitFor();
    expect(await transcript.locator('li.tool').last().textContent()).toBe(
      '✗ highlight_product({"sku":"ZZ-999"}) → There is no product ZZ-999 on this page.',
    );
    expect(await transcript.locator('li.agent').last().textContent()).toContain(
      'The tool highlight_product reported an error: There is no product ZZ-999 on this page.',
    );
    expect((await server.request('GET', '/v1/threads?agent=ui-helper')).body.data).toHaveLength(1);

    // The page only ever talked to its own server, with the placeholder key; the real key never came back.
    expect(requests.every((request) => request.url.startsWith(`${ui.url}/`))).toBe(true);
    const apiRequests = requests.filter((request) => new URL(request.url).pathname.startsWith('/v1/'));
    expect(apiRequests.length).toBeGreaterThanOrEqual(3);
    expect(apiRequests.every((request) => request.authorization === 'Bearer proxied')).toBe(true);
    expect(bodies.some((body) => body.includes(ADMIN_KEY))).toBe(false);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the proxy forwards only its allow-list, only for its own threads and agent, with a body cap', async () => {
    const call = async (method: string, path: string, body?: string) => {
      const response = await fetch(`${ui.url}${path}`, {
        method,
        headers: { authorization: 'Bearer proxied', 'content-type': 'application/json' },
        ...(body !== undefined ? { body } : {}),
      });
      const text = await response.text();
      expect(text).not.toContain(ADMIN_KEY);
      return { status: response.status, code: (JSON.parse(text) as { error?: { code: string } }).error?.code };
    };
    const foreign = (await server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id as string;
    expect(await call('GET', '/v1/agents')).toEqual({ status: 404, code: 'not_allowed' });
    expect(await call('GET', '/v1/tool-calls?state=pending')).toEqual({ status: 404, code: 'not_allowed' });
    expect(await call('PUT', '/v1/agents/ui-helper', '{"model":"scripted:auto"}')).toEqual({
      status: 404,
      code: 'not_allowed',
    });
    expect(await call('GET', `/v1/threads/${foreign}`)).toEqual({ status: 404, code: 'not_allowed' });
    expect(await call('POST', `/v1/threads/${foreign}/messages`, '{"content":"hi"}')).toEqual({
      status: 404,
      code: 'not_allowed',
    });
    expect(await call('POST', '/v1/threads', '{"agent":"refund-desk"}')).toEqual({
      status: 403,
      code: 'agent_not_allowed',
    });
    expect(
      await call('POST', '/v1/threads', JSON.stringify({ agent: 'ui-helper', metadata: { pad: 'x'.repeat(70_000) } })),
    ).toEqual({ status: 413, code: 'body_too_large' });
    expect(await call('GET', '/sdk/../../package.json')).toEqual({ status: 404, code: 'not_found' });
    const created = await fetch(`${ui.url}/v1/threads`, { method: 'POST', body: '{"agent":"ui-helper"}' });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    expect((await fetch(`${ui.url}/v1/threads/${id}`)).status).toBe(200);
  });
});
