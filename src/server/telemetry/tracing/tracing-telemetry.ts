import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import {
  callsPausedOn,
  type EngineTelemetry,
  type ToolRunKind,
  type ToolRunResult,
  type TurnRunKind,
} from '../../../engine/index.ts';
import type {
  AgentDefinition,
  FinishReason,
  LedgerEntryRecord,
  TurnRecord,
  TurnUsage,
} from '../../../domain/records.ts';
import { BATON, GEN_AI, providerAndModel } from './gen-ai-attributes.ts';
import { formatTraceparent, parseTraceparent } from './traceparent.ts';

/**
 * Providers whose model steps make no network call: nothing can nest under their steps, so the
 * step's span is not made the active context (see `TracingTelemetry`).
 */
const PROVIDERS_WITHOUT_NETWORK: ReadonlySet<string> = new Set(['scripted']);

/**
 * The engine's hooks as OpenTelemetry spans, named and attributed after the GenAI semantic
 * conventions:
 * - `invoke_agent {agent}` per run of the agent loop (start, resume, takeover); a resume links to
 *   the run that paused, whichever process ran it, through the context stored with the calls;
 * - `chat {model}` per model step, with the model, the provider and the tokens;
 * - `execute_tool {tool}` per tool call Baton runs (server tools, approved calls, fakes), the
 *   parent of the tool's HTTP calls (the undici instrumentation's spans);
 * - `await_tool_result {tool}` (or `await_approval {tool}`) per call the turn paused on: the
 *   pause itself, from the call's creation to its answer, a child of the run that paused.
 *
 * Steps and tool runs find their turn run's span by the turn's id (`runs`), not through the
 * active context: on Node 20 a span made active (AsyncLocalStorage) costs every promise created
 * under it, which measured as most of what tracing cost a round trip. Only work that may make HTTP
 * calls runs with its span active, so those calls nest under it: tool runs, and the steps of a
 * model provider that calls out (not the scripted one).
 */
export class TracingTelemetry implements EngineTelemetry {
  /** The context of each turn run in progress in this process, by turn id (a turn runs once at a time). */
  private readonly runs = new Map<string, Context>();

  constructor(private readonly tracer: Tracer) {}

  async turnRun<T extends { turn: TurnRecord }>(
    kind: TurnRunKind,
    turn: TurnRecord,
    agent: AgentDefinition,
    turnCalls: readonly LedgerEntryRecord[],
    run: () => Promise<T>,
  ): Promise<T> {
    // The calls it paused on, each with the context of the run that paused (read once, used twice).
    const paused = kind === 'resume' ? pausedOn(turnCalls) : [];
    const { provider, model } = providerAndModel(agent.model);
    const parent = context.active();
    const span = this.tracer.startSpan(
      `invoke_agent ${agent.name}`,
      {
        kind: SpanKind.INTERNAL,
        links: pausedLinks(paused),
        attributes: {
          [GEN_AI.operationName]: 'invoke_agent',
          [GEN_AI.agentName]: agent.name,
          [GEN_AI.agentId]: turn.agentId,
          [GEN_AI.conversationId]: turn.conversationId,
          [GEN_AI.providerName]: provider,
          [GEN_AI.requestModel]: model,
          [BATON.appId]: turn.appId,
          [BATON.turnId]: turn.id,
          [BATON.turnRun]: kind,
        },
      },
      parent,
    );
    for (const { call, pausedBy } of paused) this.recordWait(call, pausedBy);
    const runContext = trace.setSpan(parent, span);
    this.runs.set(turn.id, runContext);
    try {
      const outcome = await run();
      const ended = outcome.turn;
      span.setAttributes({
        [BATON.turnStatus]: ended.status,
        [GEN_AI.inputTokens]: ended.usage.inputTokens,
        [GEN_AI.outputTokens]: ended.usage.outputTokens,
      });
      if (ended.finishReason !== null) span.setAttribute(GEN_AI.responseFinishReasons, [ended.finishReason]);
      if (ended.status === 'failed') {
        span.setAttribute(GEN_AI.errorType, ended.error?.code ?? 'failed');
        span.setStatus({ code: SpanStatusCode.ERROR, message: ended.error?.message ?? 'The turn failed.' });
      }
      return outcome;
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      if (this.runs.get(turn.id) === runContext) this.runs.delete(turn.id);
      span.end();
    }
  }

  async modelStep<T extends { usage: TurnUsage; finishReason: FinishReason }>(
    turn: TurnRecord,
    modelId: string,
    step: () => Promise<T>,
  ): Promise<T> {
    const { provider, model } = providerAndModel(modelId);
    const parent = this.runs.get(turn.id) ?? context.active();
    const span = this.tracer.startSpan(
      `chat ${model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [GEN_AI.operationName]: 'chat',
          [GEN_AI.system]: provider,
          [GEN_AI.providerName]: provider,
          [GEN_AI.requestModel]: model,
        },
      },
      parent,
    );
    try {
      const colon = modelId.indexOf(':');
      const calledOut = !PROVIDERS_WITHOUT_NETWORK.has(colon < 0 ? modelId : modelId.slice(0, colon));
      // Active only when the provider calls out, so its HTTP calls nest under the step.
      const result = calledOut ? await context.with(trace.setSpan(parent, span), step) : await step();
      span.setAttributes({
        [GEN_AI.inputTokens]: result.usage.inputTokens,
        [GEN_AI.outputTokens]: result.usage.outputTokens,
        [GEN_AI.responseFinishReasons]: [result.finishReason],
      });
      return result;
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  async toolRun<T extends ToolRunResult>(
    kind: ToolRunKind,
    entry: LedgerEntryRecord,
    run: () => Promise<T>,
  ): Promise<T> {
    // In a step, under its turn run; an approved call runs when its decision arrives, outside any
    // run: under the run that paused on it, from the context stored with the call.
    const active = context.active();
    const paused = parseTraceparent(entry.traceContext);
    const parent = this.runs.get(entry.turnId) ?? (paused ? trace.setSpanContext(active, paused) : active);
    const span = this.tracer.startSpan(
      `execute_tool ${entry.toolName}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [GEN_AI.operationName]: 'execute_tool',
          [GEN_AI.toolName]: entry.toolName,
          [GEN_AI.toolCallId]: entry.id,
          // Baton runs it (an extension of the agent), not the client (a function).
          [GEN_AI.toolType]: 'extension',
          [GEN_AI.agentName]: entry.agentName,
          [BATON.toolRun]: kind,
        },
      },
      parent,
    );
    try {
      // Active, so the tool's HTTP calls nest under it.
      const result = await context.with(trace.setSpan(parent, span), run);
      if (result !== null) {
        span.setAttribute(BATON.toolFaked, result.faked === true);
        if (result.isError) {
          span.setAttribute(GEN_AI.errorType, 'tool_error');
          span.setStatus({ code: SpanStatusCode.ERROR, message: 'The tool answered with an error.' });
        }
      }
      return result;
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  runContext(turn: TurnRecord): string | null {
    const run = this.runs.get(turn.id);
    const spanContext = run === undefined ? undefined : trace.getSpan(run)?.spanContext();
    return spanContext && trace.isSpanContextValid(spanContext) ? formatTraceparent(spanContext) : null;
  }

  /**
   * The pause on one call, as a span in the trace of the run that paused: from the call's
   * creation to its answer. It is recorded by whoever resumes the turn, once the answer is in.
   */
  private recordWait(call: LedgerEntryRecord, pausedBy: SpanContext): void {
    if (call.submittedAt === null) return;
    const approval = call.kind === 'approval';
    const attributes: Attributes = {
      [GEN_AI.operationName]: approval ? 'await_approval' : 'await_tool_result',
      [GEN_AI.toolName]: call.toolName,
      [GEN_AI.toolCallId]: call.id,
      [GEN_AI.toolType]: approval ? 'extension' : 'function',
      [GEN_AI.agentName]: call.agentName,
      [BATON.callKind]: call.kind,
      [BATON.callState]: call.state,
    };
    const span = this.tracer.startSpan(
      `${approval ? 'await_approval' : 'await_tool_result'} ${call.toolName}`,
      { kind: SpanKind.INTERNAL, startTime: Date.parse(call.createdAt), attributes },
      trace.setSpanContext(context.active(), pausedBy),
    );
    span.end(Date.parse(call.submittedAt));
  }
}

/** Notes on `span` the error its work threw. */
function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setAttribute(GEN_AI.errorType, error instanceof Error ? error.name : 'error');
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** The calls a resumed turn paused on that carry the context of the run that paused on them. */
function pausedOn(turnCalls: readonly LedgerEntryRecord[]): Array<{ call: LedgerEntryRecord; pausedBy: SpanContext }> {
  return callsPausedOn(turnCalls).flatMap((call) => {
    const pausedBy = parseTraceparent(call.traceContext);
    return pausedBy ? [{ call, pausedBy }] : [];
  });
}

/** One link per distinct run that paused on the calls (usually one). */
function pausedLinks(paused: ReadonlyArray<{ pausedBy: SpanContext }>): Link[] {
  const links: Link[] = [];
  const seen = new Set<string>();
  for (const { pausedBy } of paused) {
    if (seen.has(pausedBy.spanId)) continue;
    seen.add(pausedBy.spanId);
    links.push({ context: pausedBy, attributes: { [BATON.linkReason]: 'paused' } });
  }
  return links;
}
