import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { OtlpReceiver } from '../helpers/otlp-receiver.ts';
import { APP, mixedProgram, PriceApi, weatherClientFunction } from '../server-tools/server-tool-fixtures.ts';
import { BatonProcess, makeWorkspace } from './baton-process.ts';

/**
 * The pause in a trace survives the process: the real `baton serve`, exporting over OTLP/HTTP to
 * a receiver the test runs, pauses a turn on two client calls after running a server tool over
 * HTTP, and is SIGKILLed. A new process on the same data answers the calls: its resumed run
 * links to the span of the run that paused (read back from the ledger rows), and the waits it
 * records belong to the first process's trace, under that run.
 */

const processes: BatonProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  await Promise.all(processes.splice(0).map((baton) => baton.kill()));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a paused turn’s trace across a real process restart', () => {
  it('links the resume in the new process to the run that paused in the old one, and records the waits there', async () => {
    const receiver = await new OtlpReceiver().start();
    const api = await new PriceApi().start();
    const workspace = makeWorkspace('baton-trace-');
    cleanups.push(
      () => receiver.close(),
      () => api.close(),
      () => workspace.remove(),
    );
    writeFileSync(
      workspace.configFile,
      stringifyYaml({ agents: [DEMO_AGENT], scripted: { mixed: mixedProgram }, egress: { allow: ['127.0.0.1/32'] } }),
    );
    const start = async (replica: string): Promise<BatonProcess> => {
      const baton = await BatonProcess.start({
        dataDir: workspace.dataDir,
        configFile: workspace.configFile,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_BSP_SCHEDULE_DELAY: '100',
          OTEL_SERVICE_NAME: 'baton',
          OTEL_RESOURCE_ATTRIBUTES: `baton.replica=${replica}`,
        },
      });
      processes.push(baton);
      return baton;
    };

    const first = await start('first');
    for (const [path, body] of [
      ['tools?toolId=weather', weatherClientFunction],
      ['tools?toolId=price', { openApiTool: { openApiSchema: api.document() } }],
      [
        'agents?agentId=desk',
        {
          displayName: 'Desk',
          instruction: 'Help.',
          modelSettings: { model: 'scripted:mixed' },
          tools: [`${APP}/tools/weather`, `${APP}/tools/price`],
        },
      ],
    ] as const) {
      const created = await first.request('POST', `/v1/${APP}/${path}`, body);
      expect(created.status, created.text).toBe(200);
    }
    const thread = (await first.request('POST', '/v1/threads', { agent: 'desk' })).body.id as string;
    const paused = await first.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: 'mixed' });
    expect(paused.status, paused.text).toBe(200);
    const pending = paused.body.choices[0].message.tool_calls as Array<{ id: string }>;
    expect(pending).toHaveLength(2);

    // The first process exported its run (the batch goes every 100 ms), then dies without a goodbye.
    const pausing = await receiver.waitFor(
      (span) => span.name === 'invoke_agent desk' && span.resource['baton.replica'] === 'first',
    );
    const tool = await receiver.waitFor((span) => span.name === 'execute_tool lookup_price');
    const http = await receiver.waitFor((span) => span.parentSpanId === tool.spanId);
    expect(pausing.attributes).toMatchObject({ 'baton.turn.run': 'start', 'baton.turn.status': 'requires_action' });
    expect(tool.parentSpanId).toBe(pausing.spanId);
    expect(http.attributes).toMatchObject({ 'http.request.method': 'GET', 'url.full': `${api.url}/prices/A-1` });
    await first.kill('SIGKILL');

    const second = await start('second');
    const resumed = await second.request('POST', `/v1/threads/${thread}/messages`, {
      role: 'user',
      content: pending.map((call) => ({ type: 'tool_result', tool_call_id: call.id, content: 'sunny' })),
    });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body.choices[0].message.content).toContain('Done');

    const resume = await receiver.waitFor(
      (span) => span.name === 'invoke_agent desk' && span.resource['baton.replica'] === 'second',
    );
    expect(resume.attributes).toMatchObject({ 'baton.turn.run': 'resume', 'baton.turn.status': 'completed' });
    expect(resume.links).toEqual([
      { traceId: pausing.traceId, spanId: pausing.spanId, attributes: { 'baton.link.reason': 'paused' } },
    ]);
    const step = await receiver.waitFor((span) => span.parentSpanId === resume.spanId);
    expect(step.name).toBe('chat mixed');

    await receiver.waitFor((span) => span.name === 'await_tool_result get_weather');
    const waits = receiver.spans.filter((span) => span.name === 'await_tool_result get_weather');
    expect(waits.map((wait) => wait.attributes['gen_ai.tool.call.id']).sort()).toEqual(
      pending.map((call) => call.id).sort(),
    );
    for (const wait of waits) {
      // Recorded by the second process, in the first one's trace, under the run that paused.
      expect(wait.resource['baton.replica']).toBe('second');
      expect(wait.traceId).toBe(pausing.traceId);
      expect(wait.parentSpanId).toBe(pausing.spanId);
      expect(wait.startMs).toBeGreaterThanOrEqual(pausing.startMs);
      expect(wait.endMs).toBeGreaterThanOrEqual(pausing.endMs);
      expect(wait.endMs).toBeLessThanOrEqual(resume.startMs + 1);
    }
  });
});
