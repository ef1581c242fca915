import { describe, expect, it } from 'vitest';
import { callInSandbox, jsSandboxStats, type SandboxCall } from '../../../src/tools/sandbox/js-sandbox.ts';
import { expectSandboxError } from './sandbox-test-helpers.ts';

/** Runs `body` as the body of main(args). */
function run(body: string, extra: Partial<SandboxCall> = {}): ReturnType<typeof callInSandbox> {
  return callInSandbox({
    code: `function main(args) {\n${body}\n}`,
    functionNames: ['main'],
    args: [{}],
    label: 'test tool',
    ...extra,
  });
}

describe('sandbox faults: time', () => {
  it('stops an infinite loop at the deadline', async () => {
    const started = Date.now();
    const error = await expectSandboxError(run('while (true) {}', { limits: { timeoutMs: 300 } }), 'timeout');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(5000);
    expect(error.message).toBe('test tool: main() did not finish within 300 ms and was stopped');
  });

  it('stops it with the default deadline too, well under 5 s', async () => {
    const started = Date.now();
    await expectSandboxError(run('for (;;) {}'), 'timeout');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('cannot be caught by the guest', async () => {
    await expectSandboxError(
      run('try { while (true) {} } catch (e) { return "escaped" } finally { return "escaped too" }', {
        limits: { timeoutMs: 200 },
      }),
      'timeout',
    );
  });

  it('covers top-level code and endless promise chains', async () => {
    const topLevel = await expectSandboxError(
      callInSandbox({
        code: 'while (true) {}',
        functionNames: ['main'],
        args: [],
        label: 'test tool',
        limits: { timeoutMs: 200 },
      }),
      'timeout',
    );
    expect(topLevel.message).toContain('the top-level code');
    await expectSandboxError(
      callInSandbox({
        code: 'async function main() { for (;;) await null }',
        functionNames: ['main'],
        args: [],
        label: 'test tool',
        limits: { timeoutMs: 200 },
      }),
      'timeout',
    );
  });
});

describe('sandbox faults: memory', () => {
  it('fails unbounded allocation with out_of_memory', async () => {
    const error = await expectSandboxError(
      run('const keep = []; for (;;) keep.push(new Array(1000).fill(7));', { limits: { timeoutMs: 5000 } }),
      'out_of_memory',
    );
    expect(error.message).toMatch(/^test tool: main\(\) ran out of memory/);
  });

  it('fails a run that swallowed its out-of-memory error', async () => {
    const body =
      'try { const keep = []; for (;;) keep.push("x".repeat(4096) + keep.length) } catch (e) { return { survived: String(e) } }';
    await expectSandboxError(run(body, { limits: { timeoutMs: 5000 } }), 'out_of_memory');
  });

  it('fails a run that swallowed an out-of-memory it could not even see (the guest catches null)', async () => {
    const body =
      'try { const keep = []; for (;;) keep.push({ n: keep.length }) } catch (e) { return { caught: e === null ? "null" : String(e) } }';
    await expectSandboxError(run(body, { limits: { timeoutMs: 5000 } }), 'out_of_memory');
  });

  it('fails a swallowed out-of-memory when the limit lets the heap grow', async () => {
    const body =
      'try { const keep = []; for (;;) keep.push(new Uint8Array(256 * 1024)) } catch (e) { return { survived: keep.length } }';
    await expectSandboxError(
      run(body, { limits: { timeoutMs: 5000, memoryLimitBytes: 32 * 1024 * 1024 } }),
      'out_of_memory',
    );
  });

  it('lets a run use memory within the limit', async () => {
    const body =
      'const keep = []; for (let i = 0; i < 8; i++) keep.push(new Uint8Array(1024 * 1024).fill(i)); return keep.reduce((s, a) => s + a[0], 0)';
    expect((await run(body)).value).toBe(28);
    const bigger =
      'const keep = []; for (let i = 0; i < 24; i++) keep.push(new Uint8Array(1024 * 1024).fill(1)); return keep.length';
    await expectSandboxError(run(bigger), 'out_of_memory');
    expect((await run(bigger, { limits: { memoryLimitBytes: 64 * 1024 * 1024 } })).value).toBe(24);
  });

  it('refuses one oversized allocation', async () => {
    await expectSandboxError(run('return new ArrayBuffer(512 * 1024 * 1024).byteLength'), 'out_of_memory');
  });

  it('reports runaway recursion as stack_overflow', async () => {
    const error = await expectSandboxError(
      run('function down(n) { return down(n + 1) + 1 } return down(0)'),
      'stack_overflow',
    );
    expect(error.message).toMatch(/^test tool: main\(\) overflowed the stack/);
  });

  it('survives nesting too deep for the engine (host stack) and replaces the module', async () => {
    const before = jsSandboxStats();
    const body = 'let deep = {}; for (let i = 0; i < 100000; i++) deep = { deep }; return deep';
    const error = await expectSandboxError(
      run(body, { limits: { timeoutMs: 5000, memoryLimitBytes: 64 * 1024 * 1024 } }),
      'stack_overflow',
    );
    expect(error.message).toMatch(/nested too deeply for the engine.*the sandbox was reset/);
    const after = jsSandboxStats();
    expect(after.moduleDiscards).toBe(before.moduleDiscards + 1);
    expect((await run('return args', { args: [{ ok: true }] })).value).toEqual({ ok: true });
  });
});

describe('sandbox faults: guest errors and output', () => {
  it('reports a throw with the guest message, not a host stack', async () => {
    const error = await expectSandboxError(
      run('throw new TypeError("bad input: " + JSON.stringify(args))', { args: [{ a: 1 }] }),
      'thrown',
    );
    expect(error.message).toBe('test tool: main() threw TypeError: bad input: {"a":1}');
    expect(error.guestStack).toMatch(/main \(tool\.js:2/);
  });

  it('reports thrown non-errors and rejections', async () => {
    expect((await expectSandboxError(run('throw "plain string"'), 'thrown')).message).toBe(
      'test tool: main() threw plain string',
    );
    const rejected = await expectSandboxError(
      callInSandbox({
        code: 'async function main() { await null; throw new Error("later") }',
        functionNames: ['main'],
        args: [],
        label: 'test tool',
      }),
      'thrown',
    );
    expect(rejected.message).toBe('test tool: main() rejected with Error: later');
  });

  it('reports syntax errors with the guest position', async () => {
    const error = await expectSandboxError(
      callInSandbox({ code: 'function main( {', functionNames: ['main'], args: [], label: 'test tool' }),
      'syntax_error',
    );
    expect(error.message).toMatch(/^test tool: the code does not parse \(tool\.js:1:\d+\): /);
  });

  it('reports a missing function, also when the name is bound to a non-function', async () => {
    await expectSandboxError(
      callInSandbox({ code: 'var main = 42;', functionNames: ['main'], args: [], label: 'test tool' }),
      'missing_function',
    );
  });

  it('caps the output size', async () => {
    const error = await expectSandboxError(run('return "x".repeat(300 * 1024)'), 'output_too_large');
    expect(error.message).toMatch(/the limit is 262144 bytes/);
    await expectSandboxError(
      run('return { text: "é".repeat(60) }', { limits: { maxOutputBytes: 100 } }),
      'output_too_large',
    );
    expect((await run('return { text: "é".repeat(30) }', { limits: { maxOutputBytes: 100 } })).value).toEqual({
      text: 'é'.repeat(30),
    });
  });

  it('refuses results that are not JSON', async () => {
    await expectSandboxError(run('return function () {}'), 'invalid_output');
    await expectSandboxError(run('return Symbol("s")'), 'invalid_output');
    const cycle = await expectSandboxError(run('const a = { name: "a" }; a.self = a; return a'), 'invalid_output');
    expect(cycle.message).toMatch(/no JSON form/);
    await expectSandboxError(run('return { big: 10n }'), 'invalid_output');
    await expectSandboxError(
      callInSandbox({
        code: 'function main() { return new Promise(() => {}) }',
        functionNames: ['main'],
        args: [],
        label: 'test tool',
      }),
      'invalid_output',
    );
  });
});

describe('sandbox faults: no way to the host', () => {
  it('has no host globals', async () => {
    const names = [
      'fetch',
      'require',
      'process',
      'setTimeout',
      'setInterval',
      'setImmediate',
      'queueMicrotask',
      'module',
      'Buffer',
      'XMLHttpRequest',
      'WebAssembly',
      'std',
      'os',
    ];
    const result = await run(
      `return Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, typeof globalThis[n]]))`,
    );
    expect(result.value).toEqual(Object.fromEntries(names.map((name) => [name, 'undefined'])));
  });

  it('cannot reach the host through the Function constructor', async () => {
    const error = await expectSandboxError(
      run('return globalThis.constructor.constructor("return process")()'),
      'thrown',
    );
    expect(error.message).toMatch(/ReferenceError: 'process' is not defined/);
    const global = await run(
      'const g = globalThis.constructor.constructor("return this")(); return [typeof g.process, typeof g.require, typeof g.fetch]',
    );
    expect(global.value).toEqual(['undefined', 'undefined', 'undefined']);
  });

  it('cannot load modules', async () => {
    const code = 'async function main() { return await import("node:fs") }';
    const error = await expectSandboxError(
      callInSandbox({ code, functionNames: ['main'], args: [], label: 'test tool' }),
      'thrown',
    );
    expect(error.message).toMatch(/could not load module|not supported/);
  });
});

describe('sandbox lifecycle', () => {
  it('runs 100 sequential calls, each in a fresh runtime that is disposed', async () => {
    const before = jsSandboxStats();
    const code =
      'function main(args) { const seen = typeof globalThis.leak; globalThis.leak = args.i; Object.prototype.polluted = args.i; return { i: args.i, seen } }';
    for (let i = 0; i < 100; i++) {
      const result = await callInSandbox({ code, functionNames: ['main'], args: [{ i }], label: 'test tool' });
      expect(result.value).toEqual({ i, seen: 'undefined' });
    }
    const after = jsSandboxStats();
    expect(after.runtimesCreated - before.runtimesCreated).toBe(100);
    expect(after.runtimesDisposed - before.runtimesDisposed).toBe(100);
    expect(after.runtimesAbandoned).toBe(before.runtimesAbandoned);
    expect(after.moduleLoads).toBe(before.moduleLoads);
  });

  it('disposes the runtime after failures too', async () => {
    const before = jsSandboxStats();
    await expectSandboxError(run('throw new Error("x")'), 'thrown');
    await expectSandboxError(run('while (true) {}', { limits: { timeoutMs: 50 } }), 'timeout');
    await expectSandboxError(
      callInSandbox({ code: 'nope(', functionNames: ['main'], args: [], label: 'test tool' }),
      'syntax_error',
    );
    const after = jsSandboxStats();
    expect(after.runtimesCreated - before.runtimesCreated).toBe(3);
    expect(after.runtimesDisposed - before.runtimesDisposed).toBe(3);
  });

  it('keeps the console output of failed runs', async () => {
    const thrown = await expectSandboxError(
      run('console.log("step 1", args); throw new Error("step 2 failed")', { args: [{ id: 7 }] }),
      'thrown',
    );
    expect(thrown.logs).toEqual(['step 1 {"id":7}']);
    const timedOut = await expectSandboxError(
      run('console.log("looping"); for (;;) {}', { limits: { timeoutMs: 100 } }),
      'timeout',
    );
    expect(timedOut.logs).toEqual(['looping']);
    const oom = await expectSandboxError(
      run('console.log("allocating"); const keep = []; for (;;) keep.push(new Uint8Array(65536))'),
      'out_of_memory',
    );
    expect(oom.logs).toEqual(['allocating']);
  });

  it('runs concurrent calls one at a time without mixing them up', async () => {
    const code =
      'function main(args) { globalThis.mine = args.i; let s = 0; for (let k = 0; k < 10000; k++) s += k; return { i: globalThis.mine, s } }';
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        callInSandbox({ code, functionNames: ['main'], args: [{ i }], label: 'test tool' }),
      ),
    );
    expect(results.map((result) => result.value)).toEqual(Array.from({ length: 20 }, (_, i) => ({ i, s: 49995000 })));
  });

  it('keeps one module per memory limit', async () => {
    const limits = { memoryLimitBytes: 48 * 1024 * 1024 };
    await run('return 0'); // the default module is loaded
    const before = jsSandboxStats();
    await run('return 1', { limits });
    await run('return 2', { limits });
    await run('return 3');
    expect(jsSandboxStats().moduleLoads - before.moduleLoads).toBe(1);
  });

  it('checks its limits and function names', async () => {
    await expect(run('return 1', { limits: { timeoutMs: 0 } })).rejects.toThrow(RangeError);
    await expect(run('return 1', { limits: { maxStackSizeBytes: 0 } })).rejects.toThrow(RangeError);
    await expect(run('return 1', { limits: { memoryLimitBytes: 1024 * 1024 } })).rejects.toThrow(RangeError);
    await expect(callInSandbox({ code: '', functionNames: ['main; process'], args: [], label: 'x' })).rejects.toThrow(
      TypeError,
    );
    await expect(callInSandbox({ code: '', functionNames: ['delete'], args: [], label: 'x' })).rejects.toThrow(
      TypeError,
    );
  });
});
