import type {
  AgentDefinition,
  ClientToolDefinition,
  ContentPart,
  LedgerEntryRecord,
  LedgerKind,
  NewItem,
  TurnRecord,
} from '../domain/records.ts';
import { DEFAULT_WORKER_MAX_ATTEMPTS } from '../domain/records.ts';
import { hashArguments } from './arguments-hash.ts';
import { addSeconds } from '../domain/clock.ts';
import { clampToDurationRange, DURATION_RANGES } from '../domain/duration-ranges.ts';
import type { EngineContext } from './engine-context.ts';
import { runSystemTool } from './system-tools.ts';
import { checkToolArguments } from './tool-schema.ts';

/** A tool call as the model step produced it, with the id Baton minted for it. */
export interface StepCall {
  callId: string;
  name: string;
  argumentText: string;
}

export interface StepCallRules {
  turn: TurnRecord;
  agent: AgentDefinition;
  tools: readonly ClientToolDefinition[];
  parallel: boolean;
  maxToolCalls: number | undefined;
  /** Calls the turn made before this step (they count against `maxToolCalls`). */
  callsMade: number;
  groupId: string;
  now: Date;
}

/** What a step's calls become: items to append, ledger rows, and whether the turn must stop. */
export interface PlannedCalls {
  /** The `function_call` items, in call order. */
  callItems: NewItem[];
  /** Outputs Baton writes at once: system tools, placeholders of asynchronous calls, invalid calls. */
  immediateOutputs: NewItem[];
  /** One row per valid call run outside this step: client (sync and async), approvals, server calls. */
  entries: LedgerEntryRecord[];
  invalidCount: number;
  /** `end_session` was called: the turn stops after this step. */
  endsTurn: boolean;
}

/** Which ledger kind a valid call of `tool` gets. */
function kindOf(tool: ClientToolDefinition): LedgerKind {
  if (tool.server) return tool.requireApproval ? 'approval' : 'server';
  return tool.asynchronous ? 'client_async' : 'client';
}

/**
 * Checks and sorts the calls of one model step. Invalid calls (unknown tool, bad arguments,
 * parallel calls when disabled, a spent budget) are answered to the model; system tools run at
 * once; every other call becomes a ledger row: the client's to answer, a person's to approve, or
 * the server's to run (see `runServerCalls`). Nothing is written here.
 */
export function planStepCalls(context: EngineContext, calls: readonly StepCall[], rules: StepCallRules): PlannedCalls {
  const { turn, agent, tools, parallel, maxToolCalls, groupId, now } = rules;
  const createdAt = now.toISOString();
  const base = { conversationId: turn.conversationId, turnId: turn.id, createdAt };
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const planned: PlannedCalls = { callItems: [], immediateOutputs: [], entries: [], invalidCount: 0, endsTurn: false };
  const output = (
    suffix: string,
    callId: string,
    name: string,
    text: string,
    isError: boolean,
    synthetic = true,
  ): NewItem => ({
    ...base,
    id: context.newId('item'),
    groupId: `${groupId}_${suffix}`,
    payload: { type: 'function_call_output', callId, name, output: [{ type: 'text', text }], isError, synthetic },
  });
  let valid = 0;
  for (const call of calls) {
    const tool = toolsByName.get(call.name);
    const check = !tool
      ? {
          ok: false as const,
          problem: `there is no tool named '${call.name}'; available tools: ${tools.map((t) => t.name).join(', ') || 'none'}`,
        }
      : !parallel && valid > 0
        ? { ok: false as const, problem: 'parallel tool calls are disabled for this agent; call one tool at a time' }
        : maxToolCalls !== undefined && rules.callsMade + valid >= maxToolCalls
          ? {
              ok: false as const,
              problem: `this turn may make at most ${maxToolCalls} tool call(s) (max_tool_calls) and has made them; answer without calling tools`,
            }
          : checkToolArguments(tool, call.argumentText);
    const executor = !check.ok ? 'invalid' : tool?.system ? 'system' : tool?.server ? 'server' : 'client';
    planned.callItems.push({
      ...base,
      id: context.newId('item'),
      groupId,
      payload: { type: 'function_call', callId: call.callId, name: call.name, arguments: call.argumentText, executor },
    });
    if (!check.ok || !tool) {
      planned.invalidCount += 1;
      const problem = check.ok ? 'unknown tool' : check.problem;
      planned.immediateOutputs.push(
        output(
          'invalid',
          call.callId,
          call.name,
          `Invalid call of tool '${call.name}': ${problem}. Correct the arguments and call the tool again.`,
          true,
        ),
      );
      continue;
    }
    valid += 1;
    if (tool.system) {
      const ran = runSystemTool(tool.name);
      planned.endsTurn ||= ran.endsTurn;
      planned.immediateOutputs.push(output('system', call.callId, call.name, ran.output, false));
      continue;
    }
    const kind = kindOf(tool);
    const timeoutSeconds =
      kind === 'server'
        ? undefined
        : (turn.options.toolTimeoutSeconds ??
          tool.timeoutSeconds ??
          agent.toolTimeoutSeconds ??
          // A person decides an approval: only calls the client answers get the fallback deadline.
          (kind === 'approval' ? undefined : turn.options.defaultToolTimeoutSeconds));
    planned.entries.push({
      id: call.callId,
      appId: turn.appId,
      conversationId: turn.conversationId,
      turnId: turn.id,
      agentName: agent.name,
      toolName: tool.name,
      kind,
      arguments: check.value,
      argumentsHash: hashArguments(check.value),
      callIndex: planned.entries.length,
      state: 'pending',
      // Clamped: an agent stored before the ranges existed may say 1e308 seconds, which no date can hold.
      deadlineAt:
        timeoutSeconds === null || timeoutSeconds === undefined
          ? null
          : addSeconds(now, clampToDurationRange(timeoutSeconds, DURATION_RANGES.pendingCall)).toISOString(),
      timeoutPolicy: tool.timeoutPolicy ?? agent.timeoutPolicy,
      result: null,
      isError: false,
      submittedBy: null,
      submittedAt: null,
      idempotencyKey: null,
      createdAt,
      updatedAt: createdAt,
      // Offered to tool workers, which claim it under leases, instead of waiting for the caller.
      ...(tool.executor === 'worker' && (kind === 'client' || kind === 'client_async')
        ? { worker: { attempts: 0, maxAttempts: tool.maxAttempts ?? DEFAULT_WORKER_MAX_ATTEMPTS, lease: null } }
        : {}),
    });
    if (kind === 'client_async') {
      // The model needs an answer now to go on; the real result arrives in a later turn.
      planned.immediateOutputs.push(
        output(
          'async',
          call.callId,
          call.name,
          `Tool '${call.name}' runs asynchronously on the client; its result will arrive in a later message. Continue without waiting for it.`,
          false,
        ),
      );
    }
  }
  if (planned.endsTurn) {
    // The agent ended the session: the other calls of the step will never be answered or run.
    for (const entry of planned.entries.splice(0))
      planned.immediateOutputs.push(
        output('system', entry.id, entry.toolName, 'Not run: the agent ended the session.', true),
      );
    planned.immediateOutputs = planned.immediateOutputs.filter((item) => !item.groupId.endsWith('_async'));
  }
  return planned;
}

/** The output items of resolved ledger rows, in call order, as one group (one tool message). */
export function outputsOf(
  context: EngineContext,
  entries: readonly LedgerEntryRecord[],
  base: Pick<NewItem, 'conversationId' | 'turnId' | 'createdAt'>,
  groupId: string,
): NewItem[] {
  return [...entries]
    .sort((a, b) => a.callIndex - b.callIndex)
    .map((entry) => ({
      ...base,
      id: context.newId('item'),
      groupId,
      payload: {
        type: 'function_call_output' as const,
        callId: entry.id,
        name: entry.toolName,
        output: entry.result ?? ([] as ContentPart[]),
        isError: entry.isError,
        synthetic: false,
      },
    }));
}
