import type { Transport } from '../http/transport.ts';
import { parseSse } from '../sse/parse-sse.ts';
import type { Page } from '../wire/common.ts';
import type {
  ApprovalDecision,
  CallToolDefinition,
  ClaimToolCallsBody,
  LedgerEntry,
  ListToolCallsQuery,
  ReleaseLeaseBody,
  RenewLeaseBody,
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

/** What `claim` takes: the wire body in camelCase. */
export interface ClaimToolCallsParams {
  /** Tools marked `"executor": "worker"` whose calls to take (1–64 names). */
  tools: readonly string[];
  /** Only calls made by these agents. */
  agents?: readonly string[];
  /** At most this many calls (1–100, default 1). */
  maxCalls?: number;
  /** How long each lease lasts unless renewed (5–3600 s, default 60). */
  leaseSeconds?: number;
  /** Long-poll: wait up to this long for a call when none is pending (0–60 s, default 0). */
  waitSeconds?: number;
  /** A label for the worker, shown in the console (default: the key id). */
  worker?: string;
}

/**
 * Room a long-poll claim gets beyond its wait, for the claim itself and the network: a request
 * timeout at or under the wait would abort every idle poll just before the server answers it.
 */
export const CLAIM_TIMEOUT_MARGIN_MS = 15_000;

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

  /**
   * Answers one call. The turn resumes (and `response` holds its reply) once no call of it is
   * pending. A worker passes its `lease_token`: the result is refused (409 `lease_lost`) once
   * the lease no longer holds the call.
   */
  submitResult(id: string, body: SubmitResultBody, options?: CallOptions): Promise<ToolCallResolution> {
    return this.http.json({
      method: 'POST',
      path: `/v1/tool-calls/${encodeURIComponent(id)}/result`,
      body,
      ...callSettings(options),
    });
  }

  /**
   * Takes up to `maxCalls` pending calls of worker tools under a lease (`POST /v1/tool-calls/claim`),
   * oldest first; each entry's `lease.token` is what renewing, releasing and answering it need.
   * With `waitSeconds`, waits that long for a call when none is pending; an empty list means none came.
   */
  async claim(params: ClaimToolCallsParams, options?: CallOptions): Promise<LedgerEntry[]> {
    const body: ClaimToolCallsBody = {
      tools: [...params.tools],
      ...(params.agents !== undefined ? { agents: [...params.agents] } : {}),
      ...(params.maxCalls !== undefined ? { max_calls: params.maxCalls } : {}),
      ...(params.leaseSeconds !== undefined ? { lease_seconds: params.leaseSeconds } : {}),
      ...(params.waitSeconds !== undefined ? { wait_seconds: params.waitSeconds } : {}),
      ...(params.worker !== undefined ? { worker: params.worker } : {}),
    };
    const settings = callSettings(options);
    const floor = (params.waitSeconds ?? 0) * 1000 + CLAIM_TIMEOUT_MARGIN_MS;
    const timeoutMs = Math.max(settings.timeoutMs ?? this.http.settings.timeoutMs, floor);
    const page = await this.http.json<{ data: LedgerEntry[] }>({
      method: 'POST',
      path: '/v1/tool-calls/claim',
      body,
      ...settings,
      timeoutMs,
    });
    return page.data;
  }

  /**
   * A heartbeat (`POST /v1/tool-calls/{id}/lease`): extends the lease from now by `leaseSeconds`
   * (default: the server's, 60). A 409 `lease_lost` means the token no longer holds the call.
   */
  renewLease(id: string, token: string, leaseSeconds?: number, options?: CallOptions): Promise<LedgerEntry> {
    const body: RenewLeaseBody = {
      lease_token: token,
      ...(leaseSeconds !== undefined ? { lease_seconds: leaseSeconds } : {}),
    };
    return this.http.json({
      method: 'POST',
      path: `/v1/tool-calls/${encodeURIComponent(id)}/lease`,
      body,
      ...callSettings(options),
    });
  }

  /** Gives an unstarted claim back (`POST /v1/tool-calls/{id}/release`): pending again at once, no attempt counted. */
  release(id: string, token: string, options?: CallOptions): Promise<LedgerEntry> {
    const body: ReleaseLeaseBody = { lease_token: token };
    return this.http.json({
      method: 'POST',
      path: `/v1/tool-calls/${encodeURIComponent(id)}/release`,
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
