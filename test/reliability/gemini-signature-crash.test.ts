import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import {
  startGoogleGenerateContentFake,
  type GoogleGenerateContentFake,
} from '../models/fakes/google-generate-content-fake.ts';
import type { ModelScript } from '../models/fakes/provider-fake.ts';
import { BatonProcess, makeWorkspace } from './baton-process.ts';

/**
 * The real `baton serve` on a Gemini 3 model, SIGKILLed while its turn waits for two client
 * calls: the process that resumes it has only the database, and Google refuses the resume unless
 * the thought signature of the step's calls comes back unchanged.
 */

const script: ModelScript = (view) =>
  view.toolResults.length > 0
    ? { text: `Done: ${view.toolResults.map((result) => result.output).join(' | ')}` }
    : {
        reasoning: 'Both cities at once.',
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_weather', arguments: { city: 'Rome' } },
        ],
      };

describe('a Gemini 3 pause across a crash', () => {
  let fake: GoogleGenerateContentFake;
  const workspace = makeWorkspace('baton-gemini-crash-');
  let baton: BatonProcess | undefined;

  beforeAll(async () => {
    fake = await startGoogleGenerateContentFake(script);
    writeFileSync(
      workspace.configFile,
      stringifyYaml({
        providers: { google: { base_url: fake.baseURL, api_key: 'test-key' } },
        agents: [
          {
            name: 'gemini',
            model: 'google:gemini-3-flash',
            provider_options: { google: { thinkingConfig: { includeThoughts: true } } },
            tools: [
              {
                name: 'get_weather',
                description: 'Weather of a city.',
                parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
              },
            ],
          },
        ],
      }),
    );
  });
  afterAll(async () => {
    await baton?.kill();
    await fake?.close();
    workspace.remove();
  });

  it('resumes in a new process with the signature Google issued', async () => {
    baton = await BatonProcess.start({ dataDir: workspace.dataDir, configFile: workspace.configFile });
    const thread = await baton.request('POST', '/v1/threads', { agent: 'gemini' });
    expect(thread.status, thread.text).toBe(200);
    const paused = await baton.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: 'weather?' });
    expect(paused.status, paused.text).toBe(200);
    const calls = paused.body.choices[0].message.tool_calls as { id: string }[];
    expect(calls).toHaveLength(2);
    const signatures = fake
      .issuedSignatures()
      .filter((issued) => issued.kind === 'functionCall')
      .map((issued) => issued.signature);
    expect(signatures).toHaveLength(1);

    await baton.kill('SIGKILL');
    baton = await BatonProcess.start({ dataDir: workspace.dataDir, configFile: workspace.configFile });
    const before = fake.requests.length;
    const resumed = await baton.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: calls.map((call, index) => ({ type: 'tool_result', tool_call_id: call.id, content: `city ${index}` })),
    });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body.choices[0].message.content).toBe('Done: city 0 | city 1');
    expect(fake.rejections).toEqual([]);
    expect(JSON.stringify(fake.requests.slice(before).map((request) => request.body))).toContain(signatures[0]);
  });
});
