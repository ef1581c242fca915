import { sleep } from '../http/signals.ts';
import type { Transport } from '../http/transport.ts';
import type { ToolCalls } from '../resources/tool-calls.ts';
import type { CesToolCall, CesToolResponse, RunSessionResponse, SessionConfig, SessionInput } from '../wire/ces.ts';
import { decideApprovals } from './approval-decisions.ts';
import type { FaceAdapter, Step } from './face-adapter.ts';
import type { HandlerOutcome } from './run-handlers.ts';
import type { ApprovalHandler, RunCall } from './run-types.ts';
import { followThread, stepFromMessageResponse, type ThreadReader, type ThreadReply } from './thread-steps.ts';

/** A CES reply: the outputs of a runSession, or (after an approval resumed the turn elsewhere) the thread's view of it. */
export type CesReply = RunSessionResponse | ThreadReply;

export interface CesFaceSettings {
  http: Transport;
  toolCalls: ToolCalls;
  threads: ThreadReader;
  config: Omit<SessionConfig, 'session'>;
  pollIntervalMs: number;
  onApproval: ApprovalHandler | undefined;
}

interface AwaitingApproval {
  toolCallId: string;
  toolName: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The calls a run's outputs wait on: each step's `toolCalls` (handlers are keyed by the
 * function's name, its `displayName`), and the approvals Baton notes in `diagnosticInfo`.
 */
function stepOf(session: string, reply: RunSessionResponse): Step<CesReply> {
  const calls = new Map<string, RunCall>();
  const approvals = new Map<string, RunCall>();
  const args = new Map<string, Record<string, unknown>>();
  let text: string | null = null;
  let turnIndex = 0;
  for (const output of reply.outputs) {
    turnIndex = output.turnIndex;
    if (output.text !== undefined) text = output.text;
    for (const call of output.toolCalls?.toolCalls ?? [])
      calls.set(call.id, { id: call.id, name: call.displayName, input: call.args, kind: 'client', raw: call });
    for (const message of output.diagnosticInfo?.messages ?? []) {
      for (const chunk of message.chunks) {
        const toolCall = chunk.toolCall;
        if (isObject(toolCall) && typeof toolCall.id === 'string' && isObject(toolCall.args))
          args.set(toolCall.id, toolCall.args);
        const awaiting = isObject(chunk.payload) ? chunk.payload.awaitingApproval : undefined;
        if (isObject(awaiting) && typeof awaiting.toolCallId === 'string') {
          const { toolCallId, toolName } = awaiting as unknown as AwaitingApproval;
          approvals.set(toolCallId, {
            id: toolCallId,
            name: String(toolName),
            input: {},
            kind: 'approval',
            raw: awaiting,
          });
        }
      }
    }
  }
  for (const approval of approvals.values()) approval.input = args.get(approval.id) ?? {};
  const all = [...calls.values(), ...approvals.values()];
  return {
    message: { id: `${session}#${turnIndex}`, text, toolCalls: all, raw: reply },
    calls: [...calls.values()],
    approvals: [...approvals.values()],
    fresh: true,
  };
}

/** A result as CES expects it: `{output: value}` (structured when the handler returned an object), or `{error: message}`. */
function toolResponseOf(outcome: HandlerOutcome): CesToolResponse {
  const raw = outcome.call.raw as Partial<CesToolCall>;
  const ref =
    isObject(raw) && 'toolsetTool' in raw
      ? { toolsetTool: raw.toolsetTool }
      : isObject(raw) && 'tool' in raw
        ? { tool: raw.tool }
        : {};
  const output =
    outcome.content === undefined
      ? ''
      : typeof outcome.value === 'string'
        ? outcome.value
        : (JSON.parse(outcome.content) as unknown);
  return {
    id: outcome.call.id,
    ...ref,
    displayName: outcome.call.name,
    response: outcome.isError ? { error: outcome.content ?? '' } : { output },
  };
}

/**
 * CES sessions (`POST /v1/{session}:runSession`): calls arrive as `toolCalls` outputs and their
 * responses go back as one `toolResponses` input. Approvals are decided through the ledger; the
 * decision resumes the turn on the server, so the run then reads where the conversation stands
 * from the thread behind the session.
 */
export class CesFace implements FaceAdapter<CesReply> {
  readonly face = 'ces' as const;
  readonly resultsBeforeApprovals = true;

  constructor(
    private readonly session: string,
    private readonly text: string,
    private readonly settings: CesFaceSettings,
  ) {}

  threadId(): string {
    return this.session;
  }

  async start(signal: AbortSignal | undefined): Promise<Step<CesReply>> {
    return this.runSession([{ text: this.text }], undefined, signal);
  }

  async submit(
    _step: Step<CesReply>,
    outcomes: HandlerOutcome[],
    idempotencyKey: string,
    signal: AbortSignal | undefined,
  ): Promise<Step<CesReply>> {
    return this.runSession(
      [{ toolResponses: { toolResponses: outcomes.map(toolResponseOf) } }],
      idempotencyKey,
      signal,
    );
  }

  async settleApprovals(step: Step<CesReply>, signal: AbortSignal | undefined): Promise<Step<CesReply>> {
    if (this.settings.onApproval) {
      const resumed = await decideApprovals(this.settings.toolCalls, step.approvals, this.settings.onApproval, {
        threadId: this.session,
        signal,
      });
      const reply = resumed.find((answer) => answer.response !== null)?.response;
      if (reply) return stepFromMessageResponse(reply);
    }
    // Someone decides elsewhere: wait for the rows, then read the turn that the decision resumed.
    let threadId = '';
    for (const approval of step.approvals) {
      for (;;) {
        const entry = await this.settings.toolCalls.get(approval.id, { signal });
        threadId = entry.thread_id;
        if (entry.state !== 'pending') break;
        await sleep(this.settings.pollIntervalMs, signal);
      }
    }
    return followThread(this.settings.threads, threadId, {
      pollIntervalMs: this.settings.pollIntervalMs,
      signal,
      waitForApprovals: true,
    });
  }

  private async runSession(
    inputs: SessionInput[],
    idempotencyKey: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Step<CesReply>> {
    const reply = await this.settings.http.json<RunSessionResponse>({
      method: 'POST',
      // The session name is a resource path (projects/…/sessions/…): its slashes stay.
      path: `/v1/${this.session.split('/').map(encodeURIComponent).join('/')}:runSession`,
      body: { config: { ...this.settings.config, session: this.session }, inputs },
      idempotencyKey,
      signal,
    });
    return stepOf(this.session, reply);
  }
}
