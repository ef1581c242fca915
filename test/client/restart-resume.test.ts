import { Baton } from '@baton/client';
import { afterAll, describe, expect, it } from 'vitest';
import { BatonProcess, makeWorkspace, PROCESS_ADMIN_KEY } from '../reliability/baton-process.ts';
import { SEED } from './client-fixtures.ts';

/**
 * The real `baton serve` is SIGKILLed while threads wait on client calls and started again on the
 * same SQLite file; a fresh client (as after its own restart) resumes them.
 */
describe('resuming after the server restarted', () => {
  const workspace = makeWorkspace('baton-client-');
  const processes: BatonProcess[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((baton) => baton.kill()));
    workspace.remove();
  });

  it('threads.resume answers the calls that survived the crash; threads.run answers them, then sends its input', async () => {
    const first = await BatonProcess.start({ dataDir: workspace.dataDir, configFile: workspace.configFile });
    processes.push(first);
    const before = new Baton({ baseURL: `${first.url}/v1/`, apiKey: PROCESS_ADMIN_KEY });
    const pendingThread = async (): Promise<string> => {
      const { id } = await before.threads.create({ agent: 'refund-desk' });
      const reply = await before.threads.send(id, { role: 'user', content: SEED });
      expect('choices' in reply && reply.choices[0]?.finish_reason).toBe('tool_use');
      return id;
    };
    const resumed = await pendingThread();
    const continued = await pendingThread();

    await first.kill('SIGKILL');
    const second = await BatonProcess.start({
      dataDir: workspace.dataDir,
      configFile: workspace.configFile,
      port: first.port,
    });
    processes.push(second);

    const after = new Baton({ baseURL: second.url, apiKey: PROCESS_ADMIN_KEY });
    expect((await after.threads.get(resumed)).status).toBe('pending');
    const amounts: unknown[] = [];
    const tools = {
      request_approval: (input: Record<string, unknown>) => (
        amounts.push(input.amount),
        { approved: true, approved_by: 'after-crash@x.com' }
      ),
    };

    const answer = await after.threads.resume(resumed, { tools });
    expect(answer.text).toContain('after-crash@x.com');
    expect(amounts).toEqual([500]);
    expect((await after.threads.get(resumed)).status).toBe('idle');

    const next = await after.threads.run(continued, 'Also a refund of $20', { tools });
    expect(amounts).toEqual([500, 500, 20]);
    expect(next.toolCalls).toHaveLength(2);
    const transcript = await after.threads.allMessages(continued);
    expect(transcript.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  }, 60_000);
});
