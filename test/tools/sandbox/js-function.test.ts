import { describe, expect, it } from 'vitest';
import { runJsFunction } from '../../../src/tools/sandbox/js-function.ts';
import { inThreadSandbox } from '../../../src/tools/sandbox/sandbox-runner.ts';
import { expectSandboxError } from './sandbox-test-helpers.ts';

describe('runJsFunction', () => {
  it('computes its result from the arguments and the context', async () => {
    const code = `
      function quote_order(args, context) {
        const subtotal = args.items.reduce((sum, item) => sum + item.price * item.qty, 0);
        const rate = context.variables.vatRate;
        return { subtotal, vat: Math.round(subtotal * rate * 100) / 100, currency: args.currency, session: context.sessionId };
      }`;
    const outcome = await runJsFunction({
      sandbox: inThreadSandbox,
      code,
      functionName: 'quote_order',
      args: {
        currency: 'EUR',
        items: [
          { price: 10, qty: 2 },
          { price: 2.5, qty: 4 },
        ],
      },
      context: { sessionId: 's-1', variables: { vatRate: 0.2 } },
    });
    expect(outcome).toEqual({
      result: { subtotal: 30, vat: 6, currency: 'EUR', session: 's-1' },
      calledFunction: 'quote_order',
      logs: [],
    });
  });

  it('maps a tool name that is not an identifier, and prefers it over main', async () => {
    const code = `function get_weather(args) { return 'named ' + args.city } function main() { return 'main' }`;
    const outcome = await runJsFunction({
      sandbox: inThreadSandbox,
      code,
      functionName: 'get-weather',
      args: { city: 'Oslo' },
    });
    expect(outcome.result).toBe('named Oslo');
    expect(outcome.calledFunction).toBe('get_weather');
  });

  it('falls back to main, also when declared with const', async () => {
    const outcome = await runJsFunction({
      sandbox: inThreadSandbox,
      code: 'const main = (args) => ({ doubled: args.n * 2 });',
      functionName: 'double',
      args: { n: 21 },
    });
    expect(outcome).toMatchObject({ result: { doubled: 42 }, calledFunction: 'main' });
  });

  it('awaits an async function whose promise settles on its own', async () => {
    const code =
      'async function main(args) { const x = await Promise.resolve(args.n); await null; return { x: x + 1 } }';
    expect((await runJsFunction({ sandbox: inThreadSandbox, code, functionName: 'f', args: { n: 1 } })).result).toEqual(
      { x: 2 },
    );
  });

  it('turns an undefined result into null and captures console output', async () => {
    const code = 'function main(args) { console.log("got", args); console.warn("careful") }';
    const outcome = await runJsFunction({ sandbox: inThreadSandbox, code, functionName: 'f', args: { a: 1 } });
    expect(outcome.result).toBeNull();
    expect(outcome.logs).toEqual(['got {"a":1}', 'warn: careful']);
  });

  it('keeps the captured console bounded', async () => {
    const code =
      'function main() { for (let i = 0; i < 1000; i++) console.log("line " + i + " " + "x".repeat(5000)); return 1 }';
    const outcome = await runJsFunction({
      sandbox: inThreadSandbox,
      code,
      functionName: 'f',
      args: {},
      limits: { timeoutMs: 5000 },
    });
    expect(outcome.logs.length).toBeLessThanOrEqual(101);
    expect(outcome.logs.join('').length).toBeLessThan(20_000);
    expect(outcome.logs.at(-1)).toMatch(/more console lines dropped/);
  });

  it('receives a __proto__ key in the arguments as plain data', async () => {
    const args = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
    const code = 'function main(args) { return { own: Object.keys(args), polluted: ({}).polluted === true } }';
    expect((await runJsFunction({ sandbox: inThreadSandbox, code, functionName: 'f', args })).result).toEqual({
      own: ['__proto__', 'a'],
      polluted: false,
    });
  });

  it('reports a missing function with the names it looked for', async () => {
    const error = await expectSandboxError(
      runJsFunction({ sandbox: inThreadSandbox, code: 'function other() {}', functionName: 'lookup', args: {} }),
      'missing_function',
    );
    expect(error.message).toContain('lookup or main');
  });

  it('refuses module syntax with a clear message', async () => {
    const imported = await expectSandboxError(
      runJsFunction({
        sandbox: inThreadSandbox,
        code: 'import fs from "fs";\nfunction main() {}',
        functionName: 'f',
        args: {},
      }),
      'syntax_error',
    );
    expect(imported.message).toMatch(/import\/export are not supported/);
    const exported = await expectSandboxError(
      runJsFunction({
        sandbox: inThreadSandbox,
        code: 'export function main() { return 1 }',
        functionName: 'f',
        args: {},
      }),
      'syntax_error',
    );
    expect(exported.message).toMatch(/plain script/);
  });

  it('rejects arguments that are not JSON before running anything', async () => {
    await expect(
      runJsFunction({ sandbox: inThreadSandbox, code: 'function main() {}', functionName: 'f', args: { n: 1n } }),
    ).rejects.toThrow(TypeError);
  });
});
