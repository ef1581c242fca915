import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TelemetrySettings } from '../../../src/server/telemetry/telemetry-settings.ts';
import { OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.ts';
import { RecordingTools, refundTool } from '../../helpers/recording-tools.ts';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { APP, create, mixedProgram, PriceApi, weatherClientFunction } from '../../server-tools/server-tool-fixtures.ts';
import { chatCompletionChunks, startFakeOpenAIServer, type FakeOpenAIServer } from '../../models/fake-openai-server.ts';

/**
 * Traces exported over OTLP/HTTP to a receiver the test runs, decoded as they arrive: a turn run
 * per start and resume, a model step under it with the GenAI attributes, a server tool's run with
 * its HTTP call under it (the undici instrumentation), the pause on each client call as a span in
 * the trace that paused, and the resume linked to the run that paused. (Across a real restart:
 * test/reliability/trace-across-restart.test.ts.)
 */

// Read by the SDK when the tracer provider is built: export every 100 ms, name the service, and
// send a header with every export (a collector's API key, say).
process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
process.env.OTEL_SERVICE_NAME = 'baton-tracing-test';
process.env.OTEL_EXPORTER_OTLP_HEADERS = 'x-collector-key=secret-for-tests';

function tracingTo(receiver: OtlpReceiver, protocol: 'http/protobuf' | 'http/json'): TelemetrySettings {
  return { metrics: null, tracing: { url: `${receiver.url}/v1/traces`, protocol } };
}

const childrenOf = (spans: readonly ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId);

describe('traces of a mixed turn (a server tool over HTTP, two client calls), its pause and its resume', () => {
  const receiver = new OtlpReceiver();
  const api = new PriceApi();
  let baton: TestBaton;

  beforeAll(async () => {
    await receiver.start();
    await api.start();
    baton = await startTestBaton({
      telemetry: tracingTo(receiver, 'http/protobuf'),
      scripted: { mixed: mixedProgram },
      egressAllow: ['127.0.0.1/32'],
    });
    await create(baton, 'tools?toolId=weather', weatherClientFunction);
    await create(baton, 'tools?toolId=price', { openApiTool: { openApiSchema: api.document() } });
    await create(baton, 'agents?agentId=desk', {
      displayName: 'Desk',
      instruction: 'Help.',
      modelSettings: { model: 'scripted:mixed' },
      tools: [`${APP}/tools/weather`, `${APP}/tools/price`],
    });
  });
  afterAll(async () => {
    await baton?.close();
    await api.close();
    await receiver.close();
  });

  it('exports the turn run, its model step, the tool run and its HTTP call, the waits and the linked resume', async () => {
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'desk' })).body.id as string;
    const paused = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: 'mixed' });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    const pending = paused.body.choices[0].message.tool_calls as Array<{ id: string }>;
    const pausedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300)); // a pause long enough to see in the spans
    const resumed = await baton.request('POST', `/v1/threads/${thread}/messages`, {
      role: 'user',
      content: pending.map((call, index) => ({
        type: 'tool_result',
        tool_call_id: call.id,
        content: `sunny ${index}`,
      })),
    });
    expect(resumed.body.choices[0].message.content).toContain('Done');
    const answeredAt = Date.now();

    const start = await receiver.waitFor(
      (span) => span.name === 'invoke_agent desk' && span.attributes['baton.turn.run'] === 'start',
    );
    const resume = await receiver.waitFor(
      (span) => span.name === 'invoke_agent desk' && span.attributes['baton.turn.run'] === 'resume',
    );
    await receiver.waitFor((span) => span.name.startsWith('await_tool_result'));
    const spans = receiver.spans;

    // The run that paused: a root span (no HTTP server span above it) with the GenAI attributes.
    expect(start.parentSpanId).toBe('');
    expect(start.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'desk',
      'gen_ai.conversation.id': thread,
      'gen_ai.request.model': 'mixed',
      'gen_ai.provider.name': 'baton.scripted',
      'baton.turn.status': 'requires_action',
      'gen_ai.response.finish_reasons': ['tool_use'],
    });
    expect(start.resource['service.name']).toBe('baton-tracing-test');
    expect(receiver.headers.every((headers) => headers['x-collector-key'] === 'secret-for-tests')).toBe(true);
    expect(receiver.contentTypes.every((type) => type === 'application/x-protobuf')).toBe(true);
    expect(start.scope).toBe('baton');

    // Under it: the model step, then the server tool's run, and under that its HTTP call.
    const steps = childrenOf(spans, start).filter((span) => span.name === 'chat mixed');
    expect(steps).toHaveLength(1);
    expect(steps[0]!.kind).toBe(3); // client
    expect(steps[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'mixed',
      'gen_ai.provider.name': 'baton.scripted',
      'gen_ai.system': 'baton.scripted',
      'gen_ai.response.finish_reasons': ['tool_use'],
    });
    expect(steps[0]!.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(steps[0]!.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    const tools = childrenOf(spans, start).filter((span) => span.name === 'execute_tool lookup_price');
    expect(tools).toHaveLength(1);
    const tool = tools[0]!;
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_price',
      'gen_ai.tool.type': 'extension',
      'baton.tool.run': 'server',
    });
    expect(tool.attributes['gen_ai.tool.call.id']).toMatch(/^call_/);
    expect(tool.startMs).toBeGreaterThanOrEqual(steps[0]!.endMs - 1);
    const http = childrenOf(spans, tool);
    expect(http.map((span) => span.name)).toEqual(['GET']);
    expect(http[0]!.kind).toBe(3);
    expect(http[0]!.attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.full': `${api.url}/prices/A-1`,
      'http.response.status_code': 200,
    });

    // The pause: one span per client call, in the trace of the run that paused, from the pause to the answer.
    const waits = spans.filter((span) => span.name === 'await_tool_result get_weather');
    expect(waits.map((wait) => wait.attributes['gen_ai.tool.call.id']).sort()).toEqual(
      pending.map((call) => call.id).sort(),
    );
    for (const wait of waits) {
      expect(wait.traceId).toBe(start.traceId);
      expect(wait.parentSpanId).toBe(start.spanId);
      expect(wait.attributes).toMatchObject({ 'baton.call.kind': 'client', 'baton.call.state': 'completed' });
      expect(wait.startMs).toBeGreaterThanOrEqual(start.startMs);
      expect(wait.startMs).toBeLessThanOrEqual(pausedAt);
      expect(wait.endMs - wait.startMs).toBeGreaterThanOrEqual(250);
      expect(wait.endMs).toBeLessThanOrEqual(answeredAt);
    }

    // The resume: a trace of its own, linked to the run that paused.
    expect(resume.traceId).not.toBe(start.traceId);
    expect(resume.links).toEqual([
      { traceId: start.traceId, spanId: start.spanId, attributes: { 'baton.link.reason': 'paused' } },
    ]);
    expect(resume.attributes).toMatchObject({ 'baton.turn.status': 'completed', 'gen_ai.conversation.id': thread });
    expect(childrenOf(spans, resume).map((span) => span.name)).toEqual(['chat mixed']);
    // Nothing else was traced: every span is Baton's or under one of Baton's.
    expect(spans.every((span) => span.scope === 'baton' || span.parentSpanId !== '')).toBe(true);
  });
});

describe('traces over OTLP/JSON, and an approved call under the run that paused on it', () => {
  const receiver = new OtlpReceiver();
  const tools = new RecordingTools([refundTool]);
  let baton: TestBaton;

  beforeAll(async () => {
    await receiver.start();
    baton = await startTestBaton(
      {
        telemetry: tracingTo(receiver, 'http/json'),
        scripted: {
          refunds: {
            rules: [
              { when: { user: 'refund' }, call: { tool: 'refund', arguments: { amount: 5 } } },
              { when: { tool_result: true }, say: 'Done: {{result}}' },
              { say: 'ok' },
            ],
          },
        },
        agents: [{ name: 'refunds', model: 'scripted:refunds' }],
      },
      { tools },
    );
  });
  afterAll(async () => {
    await baton?.close();
    await receiver.close();
  });

  it('runs the approved tool in the trace of the run that paused, and times the wait for the decision', async () => {
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'refunds' })).body.id as string;
    const paused = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: 'refund' });
    const approvalId = paused.body.choices[0].message.tool_calls[0].id as string;
    const decided = await baton.request('POST', `/v1/tool-calls/${approvalId}/decision`, { approve: true });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);

    const start = await receiver.waitFor(
      (span) => span.name === 'invoke_agent refunds' && span.attributes['baton.turn.run'] === 'start',
    );
    const approved = await receiver.waitFor((span) => span.name === 'execute_tool refund');
    const wait = await receiver.waitFor((span) => span.name === 'await_approval refund');
    const resume = await receiver.waitFor(
      (span) => span.name === 'invoke_agent refunds' && span.attributes['baton.turn.run'] === 'resume',
    );
    expect(receiver.contentTypes.every((type) => type.startsWith('application/json'))).toBe(true);
    expect(approved.traceId).toBe(start.traceId);
    expect(approved.parentSpanId).toBe(start.spanId);
    expect(approved.attributes).toMatchObject({
      'baton.tool.run': 'approved',
      'gen_ai.tool.call.id': approvalId,
      'baton.tool.faked': false,
    });
    expect(wait.parentSpanId).toBe(start.spanId);
    expect(wait.attributes).toMatchObject({ 'baton.call.kind': 'approval', 'gen_ai.tool.call.id': approvalId });
    // The wait ends when the decision's result was recorded: after the approved tool ran.
    expect(wait.endMs).toBeGreaterThanOrEqual(approved.startMs);
    expect(resume.links.map((link) => link.spanId)).toEqual([start.spanId]);
  });
});

describe('traces of a model provider that calls out over HTTP', () => {
  const receiver = new OtlpReceiver();
  let provider: FakeOpenAIServer;
  let baton: TestBaton;

  beforeAll(async () => {
    await receiver.start();
    // A local stand-in for an OpenAI-compatible API: never a live model.
    provider = await startFakeOpenAIServer(() => ({
      kind: 'sse',
      events: chatCompletionChunks({ text: 'Hello there', usage: { prompt_tokens: 12, completion_tokens: 3 } }),
    }));
    baton = await startTestBaton({
      telemetry: tracingTo(receiver, 'http/protobuf'),
      providers: { 'openai-compatible': { baseURL: provider.baseURL, apiKey: 'sk-test' } },
      agents: [{ name: 'greeter', model: 'openai-compatible:test-model', instructions: 'Greet.' }],
    });
  });
  afterAll(async () => {
    await baton?.close();
    await provider?.close();
    await receiver.close();
  });

  it('puts the provider’s HTTP call under the model step, with the tokens it reported', async () => {
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'greeter' })).body.id as string;
    const answer = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: 'hi' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(provider.requests).toHaveLength(1);
    const step = await receiver.waitFor((span) => span.name === 'chat test-model');
    expect(step.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai-compatible',
      'gen_ai.request.model': 'test-model',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    const call = await receiver.waitFor((span) => span.parentSpanId === step.spanId);
    expect(call.name).toBe('POST');
    expect(call.kind).toBe(3);
    expect(call.attributes).toMatchObject({
      'url.full': `${provider.baseURL}/chat/completions`,
      'http.response.status_code': 200,
    });
    // The provider received the trace context with the call (W3C propagation).
    expect(provider.requests[0]?.headers.traceparent).toBe(`00-${call.traceId}-${call.spanId}-01`);
  });
});
