import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerRepo } from '../../src/store/store.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { runSession, seedStoreAgent, sessionPrograms, toolResponse } from '../faces/ces/sessions/session-fixtures.ts';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The src files (relative to src/) whose text matches `pattern`. */
function filesMatching(pattern: RegExp, under = SRC): string[] {
  return sourceFiles(under)
    .filter((path) => pattern.test(readFileSync(path, 'utf8')))
    .map((path) => relative(SRC, path));
}

/**
 * Where a result goes: face → engine entry → the ledger module → store, and never back up. The
 * store's `resolve` is wrapped to record who called it; each face submits a tool result.
 */
describe('a tool result from every face goes through the ledger module', () => {
  let server: TestBaton;
  const callers: string[][] = [];

  beforeAll(async () => {
    // Async stacks cross the engine's layers; the default 10 frames stop before the face.
    Error.stackTraceLimit = 60;
    server = await startTestBaton({ scripted: sessionPrograms });
    await seedStoreAgent(server);
    const store = server.baton.store;
    const record = (ledger: LedgerRepo): void => {
      const resolve = ledger.resolve.bind(ledger);
      ledger.resolve = async (...args) => {
        callers.push(stackFiles(new Error().stack ?? ''));
        return resolve(...args);
      };
    };
    record(store.ledger);
    // Writes inside a transaction go through that transaction's repositories.
    const transaction = store.transaction.bind(store);
    store.transaction = (work) =>
      transaction((tx) => {
        record(tx.ledger);
        return work(tx);
      });
  });
  afterAll(async () => server?.close());

  /** The Baton source files on a stack, innermost first. */
  function stackFiles(stack: string): string[] {
    return [...stack.matchAll(/\/src\/([\w/.-]+\.ts)/g)].map((match) => match[1] ?? '');
  }

  function expectLedgerPath(face: string): void {
    const stack = callers.pop();
    expect(stack, `no resolution recorded for ${face}`).toBeDefined();
    // The store is called by the ledger state machine and nothing else; the face is further out.
    expect(stack?.[0]).toBe('engine/ledger/ledger-transitions.ts');
    const faceFrame = stack?.findIndex((file) => file.startsWith(face)) ?? -1;
    expect(faceFrame, `${face} not on the stack: ${stack?.join(' < ')}`).toBeGreaterThan(0);
    const engineFrames = stack?.slice(0, faceFrame).filter((file) => file.startsWith('engine/')) ?? [];
    expect(engineFrames.length).toBeGreaterThan(0);
    expect(stack?.slice(1, faceFrame).some((file) => file.startsWith('faces/'))).toBe(false);
  }

  it('Threads: a tool_result message', async () => {
    const thread = (await server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id;
    const paused = await server.request('POST', `/v1/threads/${thread}/messages`, {
      role: 'user',
      content: 'I need approval to process a $500 refund',
    });
    const call = paused.body.choices[0].message.tool_calls[0].id;
    const resumed = await server.request('POST', `/v1/threads/${thread}/messages`, {
      role: 'user',
      content: [{ type: 'tool_result', tool_call_id: call, content: '{"approved": true}' }],
    });
    expect(resumed.status).toBe(200);
    expectLedgerPath('faces/threads/');
  });

  it('ledger: POST /v1/tool-calls/{id}/result', async () => {
    const thread = (await server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id;
    const paused = await server.request('POST', `/v1/threads/${thread}/messages`, {
      role: 'user',
      content: 'I need approval to process a $500 refund',
    });
    const call = paused.body.choices[0].message.tool_calls[0].id;
    const answered = await server.request('POST', `/v1/tool-calls/${call}/result`, { content: 'approved' });
    expect(answered.status).toBe(200);
    expectLedgerPath('faces/ledger/');
  });

  it('Responses: a function_call_output item', async () => {
    const first = await server.request('POST', '/v1/responses', {
      model: 'refund-desk',
      input: 'I need approval to process a $500 refund',
    });
    const call = first.body.output.find((item: { type: string }) => item.type === 'function_call');
    const second = await server.request('POST', '/v1/responses', {
      model: 'refund-desk',
      previous_response_id: first.body.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"approved": true}' }],
    });
    expect(second.status).toBe(200);
    expectLedgerPath('faces/responses/');
  });

  it('CES: a toolResponse of a session', async () => {
    const paused = await runSession(server, 'result-path', [{ text: 'store' }]);
    const call = paused.body.outputs.find((output: { toolCalls?: unknown }) => output.toolCalls).toolCalls.toolCalls[0];
    const answered = await runSession(server, 'result-path', [
      { toolResponses: { toolResponses: [toolResponse(call, { output: { store: 'Main St' } })] } },
    ]);
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expectLedgerPath('faces/ces/');
  });
});

describe('the ledger has one owner', () => {
  it('only the ledger module moves a row out of pending', () => {
    expect(filesMatching(/\.ledger\.resolve\(/).filter((file) => !file.startsWith('store/'))).toEqual([
      'engine/ledger/ledger-transitions.ts',
    ]);
    expect(filesMatching(/\b(entry|row)\.state\s*=(?!=)/)).toEqual(['engine/ledger/ledger-transitions.ts']);
  });

  it('no face reads the ledger or the store', () => {
    expect(filesMatching(/\b(store|tx)\.(ledger|items|turns|conversations)\./, join(SRC, 'faces'))).toEqual([]);
    expect(filesMatching(/from '[./]*\/store\//, join(SRC, 'faces'))).toEqual([]);
  });
});
