import { BatonRunError } from '../errors.ts';
import { sleep } from '../http/signals.ts';
import type { Transport } from '../http/transport.ts';
import type { ToolCalls } from '../resources/tool-calls.ts';
import type { BatonToolCallItem, CreateResponseBody, FunctionCallItem, ResponseObject } from '../wire/responses.ts';
import { decideApprovals } from './approval-decisions.ts';
import type { FaceAdapter, Step } from './face-adapter.ts';
import type { HandlerOutcome } from './run-handlers.ts';
import type { ApprovalHandler, RunCall, RunResult } from './run-types.ts';

export interface ResponsesFaceSettings {
  http: Transport;
  toolCalls: ToolCalls;
  /** The first request (model, input, instructions, tools, previous_response_id…), or the id of a paused response to resume. */
  start: CreateResponseBody | { resume: string };
  pollIntervalMs: number;
  onApproval: ApprovalHandler | undefined;
  /** After an abort, cancel the latest response too (its pending calls get synthetic results). */
  cancelOnAbort: boolean;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function callOf(item: FunctionCallItem | BatonToolCallItem, kind: RunCall['kind']): RunCall {
  return { id: item.call_id, name: item.name, input: parseArguments(item.arguments), kind, raw: item };
}

/** The text of the response's last assistant message. */
function textOf(response: ResponseObject): string | null {
  for (let index = response.output.length - 1; index >= 0; index--) {
    const item = response.output[index];
    if (item?.type === 'message' && item.role === 'assistant') {
      return item.content
        .map((part) => (part.type === 'output_text' && typeof part.text === 'string' ? part.text : ''))
        .join('');
    }
  }
  return null;
}

/**
 * Which calls a response waits on. Baton says so in `baton_run`; on another server every
 * `function_call` without a `function_call_output` in the same output is taken as owed.
 */
function stepOf(response: ResponseObject): Step<ResponseObject> {
  if (response.status === 'failed' || response.status === 'cancelled') {
    throw new BatonRunError(
      'turn_failed',
      `Response '${response.id}' ${response.status}: ${response.error?.message ?? 'no answer'}.`,
      response.baton_run?.conversation_id ?? null,
    );
  }
  const run = response.baton_run;
  const answered = new Set(
    response.output.flatMap((item) => (item.type === 'function_call_output' ? [item.call_id] : [])),
  );
  const owed = run ? new Set(run.pending_tool_call_ids) : null;
  const approvalIds = new Set(run?.pending_approval_ids ?? []);
  const calls = response.output.flatMap((item) =>
    item.type === 'function_call' && (owed ? owed.has(item.call_id) : !answered.has(item.call_id))
      ? [callOf(item, 'client')]
      : [],
  );
  const approvals = response.output.flatMap((item) =>
    item.type === 'baton:tool_call' && approvalIds.has(item.call_id) ? [callOf(item, 'approval')] : [],
  );
  return {
    message: { id: response.id, text: textOf(response), toolCalls: [...calls, ...approvals], raw: response },
    calls,
    approvals,
    fresh: true,
  };
}

/**
 * Settled means nobody has to act but the client: no approval open, nothing running, and not the
 * moment between a decision and the resume it triggers (`requires_action` with nothing owed).
 */
function isSettled(response: ResponseObject): boolean {
  const run = response.baton_run;
  if (response.status === 'in_progress' || response.status === 'queued') return false;
  if (!run) return true;
  if (run.pending_approval_ids.length > 0 || run.status === 'in_progress') return false;
  return !(run.status === 'requires_action' && run.pending_tool_call_ids.length === 0);
}

/**
 * The Responses face (`POST /v1/responses`): calls are `function_call` items; all outputs go back
 * in one request that continues the response (`previous_response_id`). Approvals (`baton:tool_call`
 * items) must be decided before outputs are accepted, so handlers run while they are settled.
 */
export class ResponsesFace implements FaceAdapter<ResponseObject> {
  readonly face = 'responses' as const;
  readonly resultsBeforeApprovals = false;
  private conversationId = '';
  private latestId: string | null = null;

  constructor(private readonly settings: ResponsesFaceSettings) {}

  threadId(): string {
    return this.conversationId;
  }

  async start(signal: AbortSignal | undefined): Promise<Step<ResponseObject>> {
    const { start } = this.settings;
    if ('resume' in start && typeof start.resume === 'string') {
      const response = await this.settings.http.json<ResponseObject>({
        method: 'GET',
        path: `/v1/responses/${encodeURIComponent(start.resume)}`,
        signal,
      });
      this.track(response);
      return this.settle(response, signal);
    }
    return this.settle(await this.create(start as CreateResponseBody, undefined, signal), signal);
  }

  async submit(
    step: Step<ResponseObject>,
    outcomes: HandlerOutcome[],
    idempotencyKey: string,
    signal: AbortSignal | undefined,
  ): Promise<Step<ResponseObject>> {
    // Open Responses has no error flag on an output: a failure is said in the output's text.
    const input = outcomes.map((outcome) => ({
      type: 'function_call_output' as const,
      call_id: outcome.call.id,
      output: outcome.isError ? `Error: ${outcome.content ?? ''}` : (outcome.content ?? ''),
    }));
    return this.settle(
      await this.create({ previous_response_id: step.message.raw.id, input }, idempotencyKey, signal),
      signal,
    );
  }

  async settleApprovals(step: Step<ResponseObject>, signal: AbortSignal | undefined): Promise<Step<ResponseObject>> {
    if (this.settings.onApproval)
      await decideApprovals(this.settings.toolCalls, step.approvals, this.settings.onApproval, {
        threadId: this.conversationId,
        signal,
      });
    return this.poll(step.message.raw, signal);
  }

  async onAbort(): Promise<void> {
    if (!this.settings.cancelOnAbort || this.latestId === null) return;
    await this.settings.http.json({
      method: 'POST',
      path: `/v1/responses/${encodeURIComponent(this.latestId)}/cancel`,
      body: {},
    });
  }

  resultExtras(step: Step<ResponseObject>): Partial<RunResult<ResponseObject>> {
    return { responseId: step.message.raw.id };
  }

  private async create(
    body: CreateResponseBody,
    idempotencyKey: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ResponseObject> {
    const response = await this.settings.http.json<ResponseObject>({
      method: 'POST',
      path: '/v1/responses',
      body,
      idempotencyKey,
      signal,
    });
    this.track(response);
    return response;
  }

  private track(response: ResponseObject): void {
    if (response.baton_run) this.conversationId = response.baton_run.conversation_id;
    this.latestId = response.id;
  }

  /** A background response is read again until it has finished. */
  private async settle(response: ResponseObject, signal: AbortSignal | undefined): Promise<Step<ResponseObject>> {
    return response.status === 'in_progress' || response.status === 'queued'
      ? this.poll(response, signal)
      : stepOf(response);
  }

  /** Reads the response until nobody but the client has to act on it (see `isSettled`). */
  private async poll(response: ResponseObject, signal: AbortSignal | undefined): Promise<Step<ResponseObject>> {
    const read = (id: string): Promise<ResponseObject> =>
      this.settings.http.json<ResponseObject>({
        method: 'GET',
        path: `/v1/responses/${encodeURIComponent(id)}`,
        signal,
      });
    let current = await read(response.id);
    while (!isSettled(current)) {
      await sleep(this.settings.pollIntervalMs, signal);
      current = await read(current.id);
    }
    return stepOf(current);
  }
}
