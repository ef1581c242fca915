import { execFile, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/**
 * The Nodexa seed's own client code (shared/seeds/nodexa-function-calling.pt.txt), run as the seed
 * writes it against a real Baton: its complete JavaScript loop and its streaming loop (the
 * official `openai` client, in a child `node`), and its curl flow (real `curl` and `jq` under
 * bash). test/fixtures/nodexa/ holds the seed's code blocks verbatim; a run changes only the
 * base URL, the key and the assistant id, by replacing the seed's placeholders. The loops test
 * `response.status === 'requires_action'`, which Baton answers on `/nodexa/v1`, or on `/v1` for an
 * agent with `paused_response_status: requires_action`.
 */

const ROOT = join(import.meta.dirname, '../..');
const fixture = (name: string) => readFileSync(join(ROOT, 'test/fixtures/nodexa', name), 'utf8');
const SEED_BASE_URL = 'https://your-admin.example.com/v1';
/** What `scripted:auto` answers to the seed's `getWeather` result (the complete example adds humidity). */
const ANSWER =
  'Here is the tool result:\n- get_weather: city: Paris, temperature: 18, unit: celsius, conditions: partly cloudy';
/** The curl flow sends its own result, without the city. */
const CURL_ANSWER =
  'Here is the tool result:\n- get_weather: temperature: 18, unit: celsius, conditions: partly cloudy';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` with `stdin` as its input, from the repository root (so `openai` resolves). */
function run(command: string, args: string[], stdin: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('the Nodexa seed, run as it is written', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton({
      agents: [
        // The seed's assistant: its tools come with each request, as the seed sends them.
        { name: 'nodexa-assistant', model: 'scripted:auto', instructions: 'You report the weather.' },
        // The same assistant for clients that cannot change their base URL from /v1.
        {
          name: 'nodexa-assistant-v1',
          model: 'scripted:auto',
          instructions: 'You report the weather.',
          paused_response_status: 'requires_action',
        },
      ],
    });
  });
  afterAll(async () => server?.close());

  /** The seed's JavaScript with its base URL replaced, run by `node` with the seed's two variables. */
  const runJs = (file: string, baseUrl: string, assistant: string) =>
    run('node', ['--input-type=module'], fixture(file).replaceAll(SEED_BASE_URL, baseUrl), {
      NODEXA_API_KEY: server.key,
      NODEXA_ASSISTANT_ID: assistant,
    });

  const pendingCalls = async (): Promise<unknown[]> =>
    (await server.request('GET', '/v1/tool-calls?state=pending&limit=100')).body.data;

  it('the complete example (the while loop on requires_action) prints the weather answer on /nodexa/v1', async () => {
    const result = await runJs('complete-example.js.txt', `${server.url}/nodexa/v1`, 'nodexa-assistant');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Calling get_weather({"city":"Paris"})\n${ANSWER}, humidity: 65\n`);
    expect(await pendingCalls()).toEqual([]);
  });

  it('the streaming example (status read from response.completed) streams the weather answer on /nodexa/v1', async () => {
    const result = await runJs('streaming-example.js.txt', `${server.url}/nodexa/v1`, 'nodexa-assistant');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${ANSWER}\n`);
    expect(await pendingCalls()).toEqual([]);
  });

  it('both loops work on /v1 too, for an agent with paused_response_status: requires_action', async () => {
    const complete = await runJs('complete-example.js.txt', `${server.url}/v1`, 'nodexa-assistant-v1');
    expect(complete.stdout).toBe(`Calling get_weather({"city":"Paris"})\n${ANSWER}, humidity: 65\n`);
    const streaming = await runJs('streaming-example.js.txt', `${server.url}/v1`, 'nodexa-assistant-v1');
    expect(streaming.stdout).toBe(`${ANSWER}\n`);
    expect(await pendingCalls()).toEqual([]);
  });

  it('on /v1 (OpenAI semantics) the same loop stops at once: the reason for the dialect', async () => {
    const result = await runJs('complete-example.js.txt', `${server.url}/v1`, 'nodexa-assistant');
    expect(result.code).toBe(0);
    // A paused response is `completed` there, so the loop never runs and prints an empty answer…
    expect(result.stdout).toBe('\n');
    // …and leaves its call pending (until its deadline, responses.tool_timeout_seconds).
    const pending = (await pendingCalls()) as { id: string; name: string }[];
    expect(pending).toHaveLength(1);
    expect(pending[0]?.name).toBe('get_weather');
    await server.request('POST', `/v1/tool-calls/${pending[0]?.id}/result`, { content: '{"temperature":18}' });
    expect(await pendingCalls()).toEqual([]);
  });

  describe('the curl flow', () => {
    /** The seed's curl commands, placeholders replaced, run by bash with real curl and jq. */
    const runCurl = (script: string, baseUrl: string) =>
      run(
        'bash',
        ['-s'],
        script
          .replaceAll(SEED_BASE_URL, baseUrl)
          .replaceAll('YOUR_API_KEY', server.key)
          .replaceAll('YOUR_ASSISTANT_ID', 'nodexa-assistant'),
        {},
      );
    const seedScript = fixture('curl-flow.sh.txt');
    /**
     * The seed's one mistake: `WEATHER_RESULT` goes inside the JSON string of `output` unescaped,
     * so the second body is not JSON. This is the same flow with that line's quotes escaped.
     */
    const fixedScript = seedScript.replace(
      `WEATHER_RESULT='{"temperature":18,"unit":"celsius","conditions":"partly cloudy"}'`,
      `WEATHER_RESULT='{\\"temperature\\":18,\\"unit\\":\\"celsius\\",\\"conditions\\":\\"partly cloudy\\"}'`,
    );

    it('finds curl, jq and bash (the flow needs all three)', () => {
      for (const tool of ['curl', 'jq', 'bash'])
        expect(spawnSync(tool, ['--version']).status, `${tool} --version`).toBe(0);
      expect(fixedScript).not.toBe(seedScript);
    });

    it('with x-api-key: requires_action, the call, then the answer on /nodexa/v1; nothing pending', async () => {
      const result = await runCurl(fixedScript, `${server.url}/nodexa/v1`);
      expect(result.code).toBe(0);
      const [status, calling, answer] = result.stdout.split('\n');
      expect(status).toBe('Status: requires_action');
      expect(calling).toBe('Calling get_weather for: Paris');
      const final = JSON.parse(answer ?? '');
      expect(final).toMatchObject({ object: 'response', status: 'completed', previous_response_id: /^resp_/ });
      expect(final.output[0].content[0].text).toBe(CURL_ANSWER);
      expect(await pendingCalls()).toEqual([]);
    });

    it('as the seed writes it, the second body is not JSON: a 400 in the OpenAI format, and the call stays answerable', async () => {
      const result = await runCurl(seedScript, `${server.url}/nodexa/v1`);
      const lines = result.stdout.split('\n');
      expect(lines[0]).toBe('Status: requires_action');
      const refused = JSON.parse(lines[2] ?? '');
      expect(refused.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
      expect(refused.error.message).toContain('not valid JSON');
      const pending = (await pendingCalls()) as { id: string }[];
      expect(pending).toHaveLength(1);
      await server.request('POST', `/v1/tool-calls/${pending[0]?.id}/result`, { content: '{"temperature":18}' });
      expect(await pendingCalls()).toEqual([]);
    });
  });

  // The seed's Python loop needs the `openai` Python package, which these machines cannot install.
  const python = spawnSync('python3', ['-c', 'import openai']).status === 0;
  it.skipIf(!python)('the Python example prints the weather answer (skipped without the openai package)', async () => {
    const script = fixture('python-example.py.txt').replaceAll(SEED_BASE_URL, `${server.url}/nodexa/v1`);
    const result = await new Promise<Run>((resolve) => {
      const child = execFile(
        'python3',
        ['-c', script],
        { cwd: ROOT, env: { ...process.env, NODEXA_API_KEY: server.key, NODEXA_ASSISTANT_ID: 'nodexa-assistant' } },
        (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
    expect(result.stdout).toBe(`${ANSWER}\n`);
  });
});
