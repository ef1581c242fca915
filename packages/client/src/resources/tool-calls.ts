import type { Transport } from '../http/transport.ts';
import { parseSse } from '../sse/parse-sse.ts';
import type { Page } from '../wire/common.ts';
import type {
  ApprovalDecision,
  CallToolDefinition,
  LedgerEntry,
  ListToolCallsQuery,
  SubmitResultBody,
  ToolCallEvent,
  ToolCallResolution,
} from '../wire/ledger.ts';
import { callSettings, type CallOptions } from './call-options.ts';

export interface ToolCallEventsOptions {
  agent?: string;
  tool?: string;
  /** Resume after this event id (sent as `Last-Event-ID`). */
  lastEventId?: string;
  signal?: AbortSignal;
}

/** The ledger (`/v1/tool-calls`): pending calls as records, answered or decided one at a time. */
export class ToolCalls {
  constructor(private readonly http: Transport) {}

  list(query: ListToolCallsQuery = {}, options?: CallOptions): Promise<Page<LedgerEntry>> {
    const { threadId, createdBefore, ...rest } = query;
    return this.http.json({
      method: 'GET',
      path: '/v1/tool-calls',
      query: { ...rest, thread_id: threadId, created_before: createdBefore },
      ...callSettings(options),
    });
  }

  /** The tool a call was made to: its input schema and, for client functions, the answer's. */
  tool(id: string, options?: CallOptions): Promise<CallToolDefinition> {
    return this.http.json({
      method: 'GET',
      path: `/v1/tool-calls/${encodeURIComponent(id)}/tool`,
      ...callSettings(options),
    });
  }

  get(id: string, options?: CallOptions): Promise<LedgerEntry> {
    return this.http.json({
      method: 'GET',
      path: `/v1/tool-calls/${encodeURIComponent(id)}`,
      ...callSettings(options),
    });
  }

  /** Answers one call. The turn resumes (and `response` holds its reply) once no call of it is pending. */
  submitResult(id: string, body: SubmitResultBody, options?: CallOptions): Promise<ToolCallResolution> {
    return this.http.json({
      method: 'POST',
      path: `/v1/tool-calls/${encodeURIComponent(id)}/result`,
      body,
      ...callSettings(options),
    });
  }

  /** Decides an approval: approve (the tool runs, with edited `arguments` if given) or deny with a reason. */
  decide(id: string, decision: ApprovalDecision, options?: CallOptions): Promise<ToolCallResolution> {
    return this.http.json({
      method: 'POST',
      path: `/v1/tool-calls/${encodeURIComponent(id)}/decision`,
      body: decision,
      ...callSettings(options),
    });
  }

  /**
   * Ledger events as they happen (`GET /v1/tool-calls/events`): `ready`, then `tool_call.created`
   * and `tool_call.resolved` with the row. The stream ends when `signal` aborts or the server
   * closes it; pass the last event's `id` as `lastEventId` to pick up where it stopped.
   */
  async *events(options: ToolCallEventsOptions = {}): AsyncGenerator<ToolCallEvent, void, undefined> {
    const stream = await this.http.stream({
      method: 'GET',
      path: '/v1/tool-calls/events',
      query: { agent: options.agent, tool: options.tool },
      signal: options.signal,
      // A subscription is meant to stay open: no request timeout.
      timeoutMs: Number.POSITIVE_INFINITY,
      ...(options.lastEventId !== undefined ? { headers: { 'last-event-id': options.lastEventId } } : {}),
    });
    try {
      if (!stream.response.body) return;
      for await (const message of parseSse(stream.response.body)) {
        let data: unknown = message.data;
        try {
          data = JSON.parse(message.data) as unknown;
        } catch {
          // Not JSON (a plain `ready`): keep the text.
        }
        const toolCall = isLedgerEntry(data)
          ? data
          : isLedgerEntry((data as { tool_call?: unknown } | null)?.tool_call)
            ? (data as { tool_call: LedgerEntry }).tool_call
            : null;
        yield { type: message.event, id: message.id, toolCall, data };
      }
    } catch (error) {
      // Aborting is how a subscriber stops listening, not a failure.
      if (!options.signal?.aborted) throw error;
    } finally {
      stream.close();
    }
  }
}

function isLedgerEntry(value: unknown): value is LedgerEntry {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { id?: unknown }).id === 'string' &&
    typeof (value as { state?: unknown }).state === 'string'
  );
}
