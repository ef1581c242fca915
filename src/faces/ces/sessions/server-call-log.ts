import type { ContentPart, LedgerEntryRecord } from '../../../domain/records.ts';
import type { MessageWire } from './session-wire.ts';
import type { ToolCallNames } from './tool-call-names.ts';
import { argsFromValue, toolCallWire, toolResponseWire } from './tool-chunks.ts';

/** Baton's own notes in diagnosticInfo (an approval to decide) use this role, never the agent's. */
export const BATON_ROLE = 'system';

interface ServerCall {
  name: string;
  args: Record<string, unknown>;
  eventTime: string;
}

/**
 * The server-side calls of one request (and the model's reasoning, as the agent's text), as the
 * CES `Message`s of `diagnosticInfo`: calls Baton
 * runs itself (server tools, fakes) are never the client's to answer, so they are reported here
 * rather than as `toolCalls`. A call's response may enter the transcript in a later request (a
 * step with client calls waits for them first); that request repeats the call before its response,
 * so each request's diagnosticInfo reads on its own.
 */
export class ServerCallLog {
  /** Server calls of the turn, made in this request or before it, by call id. */
  private readonly calls = new Map<string, ServerCall>();
  /** Calls whose toolCall chunk this request has already reported. */
  private readonly reported = new Set<string>();
  private readonly messages: MessageWire[] = [];

  constructor(
    private readonly names: ToolCallNames,
    private readonly agentRole: string,
  ) {}

  /** Server calls made by an earlier request of the same turn (ledger rows), so their responses pair up. */
  know(entries: readonly LedgerEntryRecord[]): void {
    for (const entry of entries) {
      if (entry.kind !== 'server' && entry.kind !== 'approval') continue;
      if (!this.calls.has(entry.id))
        this.calls.set(entry.id, {
          name: entry.toolName,
          args: argsFromValue(entry.arguments),
          eventTime: entry.createdAt,
        });
    }
  }

  /** A server call the model made in this request. */
  call(id: string, name: string, args: Record<string, unknown>, eventTime: string): void {
    this.calls.set(id, { name, args, eventTime });
    this.reportCall(id);
  }

  /** An output entered the transcript; only those of server calls are reported. */
  response(id: string, output: readonly ContentPart[], isError: boolean, eventTime: string): void {
    const call = this.calls.get(id);
    if (!call) return;
    this.reportCall(id);
    this.append(
      this.agentRole,
      { toolResponse: toolResponseWire(id, this.names.identify(call.name), output, isError) },
      eventTime,
    );
  }

  /** What the model showed of its reasoning (a summary or its thinking), as the agent's text; never a signature. */
  reasoning(text: string, eventTime: string): void {
    if (text === '') return;
    this.messages.push({ role: this.agentRole, chunks: [{ text }], eventTime });
  }

  /**
   * Approvals the turn waits for: the call (so the client sees what is asked) and Baton's note of
   * how to decide it, as text for people and a payload for programs.
   */
  awaitingApproval(entries: readonly LedgerEntryRecord[]): void {
    this.know(entries);
    const now = new Date().toISOString();
    for (const entry of entries) {
      this.reportCall(entry.id);
      const decide = `POST /v1/tool-calls/${entry.id}/decision`;
      this.messages.push({
        role: BATON_ROLE,
        chunks: [
          {
            text:
              `Tool call '${entry.id}' (${entry.toolName}) is waiting for a person's approval: decide it ` +
              `with ${decide} {"approve": true} or {"approve": false, "reason": "…"}. The session takes new ` +
              `input once it is decided.`,
          },
          { payload: { awaitingApproval: { toolCallId: entry.id, toolName: entry.toolName, decide } } },
        ],
        eventTime: now,
      });
    }
  }

  /** The `diagnosticInfo` of the turnCompleted output, or undefined when nothing happened server-side. */
  diagnosticInfo(): { messages: MessageWire[] } | undefined {
    return this.messages.length > 0 ? { messages: this.messages } : undefined;
  }

  private reportCall(id: string): void {
    const call = this.calls.get(id);
    if (!call || this.reported.has(id)) return;
    this.reported.add(id);
    this.append(
      this.agentRole,
      { toolCall: toolCallWire(id, this.names.identify(call.name), call.args) },
      call.eventTime,
    );
  }

  /** Calls of one step share a message, and so do their responses; a call and its response never do. */
  private append(role: string, chunk: Record<string, unknown>, eventTime: string): void {
    const last = this.messages[this.messages.length - 1];
    const lastChunk = last?.chunks[last.chunks.length - 1];
    if (last && lastChunk && last.role === role && Object.keys(lastChunk)[0] === Object.keys(chunk)[0])
      last.chunks.push(chunk);
    else this.messages.push({ role, chunks: [chunk], eventTime });
  }
}
