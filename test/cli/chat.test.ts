import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/** `baton chat`: a person answers the client-executed call at a prompt. Driven through stdin here. */
describe('baton chat', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton();
  });
  afterAll(async () => server.close());

  function runChat(lines: string[]): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'chat', 'refund-desk'], {
        cwd: process.cwd(),
        env: { ...process.env, BATON_URL: server.url, BATON_API_KEY: server.key },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        // Answer each prompt as it appears, like a person would.
        const prompts = output.split(/you> |result for /).length - 1;
        while (sent < prompts && sent < lines.length) child.stdin.write(`${lines[sent++]}\n`);
      });
      let sent = 0;
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  }

  it('shows the call, sends the typed answer, prints the agent reply', async () => {
    const { code, output } = await runChat([
      'I need approval to process a $500 refund',
      '{"approved": true, "approved_by": "cli@x.com"}',
      '',
    ]);
    expect(output).toContain('request_approval');
    expect(output).toContain('"amount": 500');
    expect(output).toContain('cli@x.com');
    expect(code).toBe(0);
    const calls = await server.request('GET', '/v1/tool-calls?state=completed');
    expect(
      calls.body.data.some((entry: { result: { content: string } }) => entry.result.content.includes('cli@x.com')),
    ).toBe(true);
  });

  it('an answer starting with ! is sent as an error', async () => {
    const { output } = await runChat(['refund of $5', '!manager unavailable', '']);
    expect(output).toMatch(/error/i);
    const failed = await server.request('GET', '/v1/tool-calls?state=failed');
    expect(
      failed.body.data.some((entry: { result: { content: string } }) => entry.result.content === 'manager unavailable'),
    ).toBe(true);
  });
});
