import { describe, expect, it } from 'vitest';
import { assertNoPythonCode, fakeFunctionName, runFake } from '../../../src/tools/sandbox/fake-runner.ts';
import { inThreadSandbox } from '../../../src/tools/sandbox/sandbox-runner.ts';
import { SandboxError } from '../../../src/tools/sandbox/sandbox-error.ts';
import { expectSandboxError } from './sandbox-test-helpers.ts';

const tool = { id: 'get-weather', name: 'projects/p/locations/l/apps/a/tools/get-weather', displayName: 'Get weather' };
const context = {
  sessionId: 'sess-1',
  agentName: 'helper',
  invocationId: 'inv-9',
  variables: { scenario: 'sunny', city: 'Lisbon' },
};

describe('runFake', () => {
  it('prefers fake_<toolId> over fake_tool_call', async () => {
    const jsCode = `
      function fake_tool_call(tool, input, ctx) { return { from: 'catch-all' } }
      function fake_get_weather(tool, input, ctx) { return { from: 'per-tool', tool, input } }`;
    const outcome = await runFake({ sandbox: inThreadSandbox, jsCode, tool, input: { city: 'Oslo' }, context });
    expect(outcome).toEqual({
      kind: 'fake',
      result: {
        from: 'per-tool',
        tool: { id: 'get-weather', name: tool.name, displayName: 'Get weather' },
        input: { city: 'Oslo' },
      },
      calledFunction: 'fake_get_weather',
      logs: [],
    });
  });

  it('uses fake_tool_call for tools without their own fake', async () => {
    const jsCode = `
      function fake_other_tool() { return { from: 'other' } }
      function fake_tool_call(tool, input, ctx) { return { from: 'catch-all', id: tool.id } }`;
    const outcome = await runFake({ sandbox: inThreadSandbox, jsCode, tool, input: {}, context });
    expect(outcome).toMatchObject({
      kind: 'fake',
      result: { from: 'catch-all', id: 'get-weather' },
      calledFunction: 'fake_tool_call',
    });
  });

  it('returns kind real for null and for undefined', async () => {
    const jsCode = `
      function fake_tool_call(tool, input, ctx) {
        if (input.mode === 'null') return null;
        if (input.mode === 'undefined') return undefined;
        return { faked: true };
      }`;
    expect(await runFake({ sandbox: inThreadSandbox, jsCode, tool, input: { mode: 'null' }, context })).toMatchObject({
      kind: 'real',
    });
    expect(
      await runFake({ sandbox: inThreadSandbox, jsCode, tool, input: { mode: 'undefined' }, context }),
    ).toMatchObject({ kind: 'real' });
    expect(await runFake({ sandbox: inThreadSandbox, jsCode, tool, input: { mode: 'fake' }, context })).toMatchObject({
      kind: 'fake',
      result: { faked: true },
    });
  });

  it('passes the context with the session variables (a copy: writes are not shared back)', async () => {
    const jsCode = `
      function fake_tool_call(tool, input, ctx) {
        const seen = { ...ctx, variables: { ...ctx.variables } };
        ctx.variables.scenario = 'changed';
        return seen;
      }`;
    const first = await runFake({ sandbox: inThreadSandbox, jsCode, tool, input: {}, context });
    expect(first).toMatchObject({ kind: 'fake', result: context });
    expect(context.variables.scenario).toBe('sunny');
    const second = await runFake({ sandbox: inThreadSandbox, jsCode, tool, input: {}, context });
    expect(second).toMatchObject({ kind: 'fake', result: { variables: { scenario: 'sunny' } } });
  });

  it('fills in a missing context with nulls and empty variables', async () => {
    const outcome = await runFake({
      sandbox: inThreadSandbox,
      jsCode: 'function fake_tool_call(t, i, ctx) { return ctx }',
      tool: { id: 't1' },
      input: {},
    });
    expect(outcome).toMatchObject({
      kind: 'fake',
      result: { sessionId: null, agentName: null, invocationId: null, variables: {} },
    });
  });

  it('scripts outcomes from variables, as CES fakes do', async () => {
    const jsCode = `
      function fake_get_weather(tool, input, ctx) {
        if (ctx.variables.scenario === 'down') throw new Error('weather service unavailable');
        return { city: input.city ?? ctx.variables.city, sky: ctx.variables.scenario };
      }`;
    expect(await runFake({ sandbox: inThreadSandbox, jsCode, tool, input: {}, context })).toMatchObject({
      result: { city: 'Lisbon', sky: 'sunny' },
    });
    const down = { ...context, variables: { scenario: 'down' } };
    const error = await expectSandboxError(
      runFake({ sandbox: inThreadSandbox, jsCode, tool, input: {}, context: down }),
      'thrown',
    );
    expect(error.message).toBe(
      'fake for tool get-weather: fake_get_weather() threw Error: weather service unavailable',
    );
  });

  it('fails with missing_function when neither function is defined', async () => {
    const error = await expectSandboxError(
      runFake({ sandbox: inThreadSandbox, jsCode: 'function fake_something_else() {}', tool, input: {}, context }),
      'missing_function',
    );
    expect(error.message).toContain('fake_get_weather or fake_tool_call');
  });

  it('maps tool ids to function names', () => {
    expect(fakeFunctionName('get-weather')).toBe('fake_get_weather');
    expect(fakeFunctionName('a.b/c d')).toBe('fake_a_b_c_d');
    expect(fakeFunctionName('123')).toBe('fake_123');
  });
});

describe('assertNoPythonCode', () => {
  it('refuses pythonCode with a clear message', () => {
    let caught: unknown;
    try {
      assertNoPythonCode({ pythonCode: 'def fake_tool_call(tool, input, callback_context):\n  return None' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SandboxError);
    expect((caught as SandboxError).code).toBe('unsupported_code');
    expect((caught as SandboxError).message).toBe(
      'pythonCode is not supported: Baton runs JavaScript fakes; set codeBlock.jsCode with fake_tool_call(tool, input, ctx)',
    );
  });

  it('accepts a JavaScript code block or none', () => {
    expect(() =>
      assertNoPythonCode({ jsCode: 'function fake_tool_call() { return null }' } as { pythonCode?: unknown }),
    ).not.toThrow();
    expect(() => assertNoPythonCode(undefined)).not.toThrow();
  });

  it('points Python pasted into jsCode at the right runtime', async () => {
    const jsCode = 'def fake_tool_call(tool, input, callback_context):\n    return None';
    const error = await expectSandboxError(
      runFake({ sandbox: inThreadSandbox, jsCode, tool, input: {}, context }),
      'syntax_error',
    );
    expect(error.message).toMatch(/looks like Python/);
  });
});
