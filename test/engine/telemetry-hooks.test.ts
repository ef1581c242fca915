import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.ts';
import { newId } from '../../src/domain/ids.ts';
import type { ClientToolDefinition, LedgerEntryRecord, TurnRecord } from '../../src/domain/records.ts';
import {
  callsPausedOn,
  Engine,
  isQueuedOutcome,
  type EngineTelemetry,
  type ToolProvider,
  type ToolRunKind,
  type TurnOutcome,
  type TurnRunKind,
} from '../../src/engine/index.ts';
import { ScriptedLanguageModel } from '../../src/models/scripted/scripted-model.ts';
import { parseScriptedProgram } from '../../src/models/scripted/scripted-program.ts';
import { agentFromWire } from '../../src/resources/agents/agent-config-form.ts';
import { AgentService } from '../../src/resources/agents/agent-service.ts';
import { ensureDefaultApp } from '../../src/resources/apps/app-records.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { lookupPriceTool, refundTool } from '../helpers/recording-tools.ts';
import { weatherTool } from '../helpers/test-agents.ts';
import { orphanTurn } from '../helpers/orphaned-turns.ts';

/**
 * The engine's telemetry port (src/engine/ports/telemetry.ts), seen through a recording double:
 * which hooks run around what (turn runs by kind, model steps, tool runs by kind), and how the
 * context of the run that pauses is stored with its calls and handed to the run that resumes.
 */

const program = parseScriptedProgram(
  {
    rules: [
      {
        when: { user: 'mixed' },
        calls: [
          { tool: 'get_weather', arguments: { city: 'SF' } },
          { tool: 'lookup_price', arguments: { sku: 'A-1' } },
        ],
      },
      { when: { user: 'refund' }, call: { tool: 'refund', arguments: { amount: 5 } } },
      { when: { user: 'forecast' }, call: { tool: 'forecast', arguments: { city: 'Oslo' } } },
      { when: { tool_result: true }, say: 'Done: {{result}}' },
      { say: 'ok' },
    ],
  },
  'desk',
);

interface Recorded {
  hook: 'turnRun' | 'modelStep' | 'toolRun';
  kind?: TurnRunKind | ToolRunKind;
  model?: string;
  tool?: string;
  traceContext?: string | undefined;
  pausedOn?: Array<{ id: string; state: string; traceContext: string | undefined }>;
  status?: string;
}

/** Records every hook; `runContext` names the turn run in progress (`run-1`, `run-2`…). */
class RecordingTelemetry implements EngineTelemetry {
  readonly events: Recorded[] = [];
  private runs = 0;
  private current: string | null = null;

  async turnRun<T extends { turn: TurnRecord }>(
    kind: TurnRunKind,
    _turn: TurnRecord,
    _agent: unknown,
    turnCalls: readonly LedgerEntryRecord[],
    run: () => Promise<T>,
  ): Promise<T> {
    const event: Recorded = {
      hook: 'turnRun',
      kind,
      pausedOn: callsPausedOn(turnCalls).map((call) => ({
        id: call.id,
        state: call.state,
        traceContext: call.traceContext,
      })),
    };
    this.events.push(event);
    this.current = `run-${++this.runs}`;
    try {
      const outcome = await run();
      event.status = outcome.turn.status;
      return outcome;
    } finally {
      this.current = null;
    }
  }

  modelStep<T>(_turn: TurnRecord, model: string, step: () => Promise<T>): Promise<T> {
    this.events.push({ hook: 'modelStep', model });
    return step();
  }

  toolRun<T>(kind: ToolRunKind, entry: LedgerEntryRecord, run: () => Promise<T>): Promise<T> {
    this.events.push({ hook: 'toolRun', kind, tool: entry.toolName, traceContext: entry.traceContext });
    return run();
  }

  runContext(): string | null {
    return this.current;
  }
}

/** A client function in fake mode: in a turn that asks for fakes, its fake answers instead of the client. */
const forecastTool: ClientToolDefinition = {
  name: 'forecast',
  description: 'Forecast of a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  fake: { collection: 'tools', resourceId: 'forecast' },
};

const serverTools: ToolProvider = {
  listTools: async (): Promise<ClientToolDefinition[]> => [lookupPriceTool, refundTool, forecastTool],
  run: async (call) => ({ output: [{ type: 'text', text: `ran ${call.tool.name}` }], isError: false }),
  fake: async () => ({ output: [{ type: 'text', text: 'faked: sunny' }], isError: false }),
};

const submission = { actor: 'key_test', idempotencyKey: null };

describe('the engine calls its telemetry around turn runs, model steps and tool runs', () => {
  let store: Store | undefined;
  afterEach(async () => store?.close());

  async function setUp(): Promise<{ engine: Engine; telemetry: RecordingTelemetry; appId: string; thread: string }> {
    store = await openStore({ kind: 'sqlite', filename: ':memory:' });
    const telemetry = new RecordingTelemetry();
    const engine = new Engine({
      store,
      models: { resolve: (id) => new ScriptedLanguageModel(id, program) },
      tools: serverTools,
      telemetry,
    });
    const appId = await ensureDefaultApp(store);
    await new AgentService(store, systemClock, newId, () => {}).create(
      appId,
      agentFromWire({ name: 'desk', model: 'scripted:desk', tools: [weatherTool] }),
    );
    const thread = (await engine.createConversation(appId, 'desk', {})).id;
    return { engine, telemetry, appId, thread };
  }

  async function say(
    engine: Engine,
    appId: string,
    thread: string,
    text: string,
    useToolFakes = false,
  ): Promise<TurnOutcome> {
    const outcome = await engine.sendMessage(
      appId,
      thread,
      {
        items: [{ type: 'message', role: 'user', content: [{ type: 'text', text }] }],
        options: { tools: [], useToolFakes },
      },
      { submission },
    );
    if (isQueuedOutcome(outcome)) throw new Error('unexpected queued input');
    return outcome;
  }

  it('a start runs a model step and a server tool, and its client call carries the run’s context to the resume', async () => {
    const { engine, telemetry, appId, thread } = await setUp();
    const paused = await say(engine, appId, thread, 'mixed');
    expect(paused.turn.status).toBe('requires_action');
    expect(telemetry.events).toEqual([
      { hook: 'turnRun', kind: 'start', pausedOn: [], status: 'requires_action' },
      { hook: 'modelStep', model: 'scripted:desk' },
      { hook: 'toolRun', kind: 'server', tool: 'lookup_price', traceContext: undefined },
    ]);
    // The pending call is stored with the context of the run that paused on it; the server call,
    // answered in the step, with none.
    const calls = await engine.listCalls({ appId, conversationId: thread }, { limit: 10, cursor: null });
    const byTool = Object.fromEntries(calls.data.map((call) => [call.toolName, call]));
    expect(byTool.get_weather?.traceContext).toBe('run-1');
    expect(byTool.lookup_price?.traceContext).toBeUndefined();

    telemetry.events.length = 0;
    const callId = paused.pendingCalls[0]!.id;
    const resumed = await engine.submitResults(
      appId,
      thread,
      [{ callId, output: [{ type: 'text', text: 'sunny' }], isError: false, param: 'content[0]' }],
      { submission },
    );
    expect(resumed.turn.status).toBe('completed');
    expect(telemetry.events).toEqual([
      {
        hook: 'turnRun',
        kind: 'resume',
        pausedOn: [{ id: callId, state: 'completed', traceContext: 'run-1' }],
        status: 'completed',
      },
      { hook: 'modelStep', model: 'scripted:desk' },
    ]);
  });

  it('an approved call runs as an `approved` tool run, with the context of the run that paused, then the turn resumes', async () => {
    const { engine, telemetry, appId, thread } = await setUp();
    const paused = await say(engine, appId, thread, 'refund');
    const approval = paused.pendingCalls[0]!;
    expect(approval.kind).toBe('approval');
    telemetry.events.length = 0;
    const decided = await engine.decideApproval(appId, approval.id, { approve: true }, { submission });
    expect(decided.outcome?.turn.status).toBe('completed');
    expect(telemetry.events).toEqual([
      { hook: 'toolRun', kind: 'approved', tool: 'refund', traceContext: 'run-1' },
      {
        hook: 'turnRun',
        kind: 'resume',
        pausedOn: [{ id: approval.id, state: 'completed', traceContext: 'run-1' }],
        status: 'completed',
      },
      { hook: 'modelStep', model: 'scripted:desk' },
    ]);
  });

  it('a resume through the ledger (one call at a time) hands over the turn’s calls too', async () => {
    const { engine, telemetry, appId, thread } = await setUp();
    const paused = await say(engine, appId, thread, 'mixed');
    telemetry.events.length = 0;
    const callId = paused.pendingCalls[0]!.id;
    const { outcome } = await engine.submitCallResult(
      appId,
      callId,
      { output: [{ type: 'text', text: 'rain' }], isError: false },
      { submission },
    );
    expect(outcome?.turn.status).toBe('completed');
    expect(telemetry.events[0]).toEqual({
      hook: 'turnRun',
      kind: 'resume',
      pausedOn: [{ id: callId, state: 'completed', traceContext: 'run-1' }],
      status: 'completed',
    });
  });

  it('a client function answered by its fake is a `fake` tool run, and the turn goes on without pausing', async () => {
    const { engine, telemetry, appId, thread } = await setUp();
    const outcome = await say(engine, appId, thread, 'forecast', true);
    expect(outcome.turn.status).toBe('completed');
    expect(telemetry.events).toEqual([
      { hook: 'turnRun', kind: 'start', pausedOn: [], status: 'completed' },
      { hook: 'modelStep', model: 'scripted:desk' },
      { hook: 'toolRun', kind: 'fake', tool: 'forecast', traceContext: undefined },
      { hook: 'modelStep', model: 'scripted:desk' },
    ]);
  });

  it('a turn taken over from a dead process runs as a `takeover`', async () => {
    const { engine, telemetry, appId } = await setUp();
    await orphanTurn(engine, store!, appId, 'desk', {
      turnId: 'turn_orphaned',
      text: 'hello',
      now: new Date(0).toISOString(),
    });
    expect(await engine.recoverStaleTurns(10, 0)).toBe(1);
    await engine.idle();
    expect(telemetry.events).toEqual([
      { hook: 'turnRun', kind: 'takeover', pausedOn: [], status: 'completed' },
      { hook: 'modelStep', model: 'scripted:desk' },
    ]);
  });
});
