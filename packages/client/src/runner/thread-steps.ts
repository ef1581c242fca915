import { BatonRunError } from '../errors.ts';
import { sleep } from '../http/signals.ts';
import type { CallOptions } from '../resources/call-options.ts';
import type { MessageResponse, PendingToolCall, Thread, ThreadMessage } from '../wire/threads.ts';
import type { Step } from './face-adapter.ts';
import type { RunCall } from './run-types.ts';

/** A Threads reply: a message response, a transcript message read after a wait, or the thread itself (its pending calls). */
export type ThreadReply = MessageResponse | ThreadMessage | Thread;

/** What following a thread needs from the client. */
export interface ThreadReader {
  get(id: string, options?: CallOptions): Promise<Thread>;
  allMessages(id: string, options?: CallOptions): Promise<ThreadMessage[]>;
}

export function runCallOf(call: PendingToolCall): RunCall {
  return {
    id: call.id,
    name: call.name,
    input: call.input,
    kind: call.kind === 'approval' ? 'approval' : 'client',
    raw: call,
  };
}

function split(calls: readonly PendingToolCall[]): { all: RunCall[]; calls: RunCall[]; approvals: RunCall[] } {
  const all = calls.map(runCallOf);
  return {
    all,
    calls: all.filter((call) => call.kind === 'client'),
    approvals: all.filter((call) => call.kind === 'approval'),
  };
}

export function stepFromMessageResponse(reply: MessageResponse): Step<ThreadReply> {
  const message = reply.choices[0]?.message;
  const { all, calls, approvals } = split(message?.tool_calls ?? []);
  return {
    message: { id: reply.id, text: message?.content ?? null, toolCalls: all, raw: reply },
    calls,
    approvals,
    fresh: true,
  };
}

/** The calls a thread waits on, read with GET (on resume, or after a wait). */
export function stepFromThread(thread: Thread): Step<ThreadReply> {
  const { all, calls, approvals } = split(thread.pending_tool_calls);
  return { message: { id: thread.id, text: null, toolCalls: all, raw: thread }, calls, approvals, fresh: false };
}

function stepFromTranscript(thread: Thread, message: ThreadMessage | undefined): Step<ThreadReply> {
  if (!message)
    return {
      message: { id: thread.id, text: null, toolCalls: [], raw: thread },
      calls: [],
      approvals: [],
      fresh: false,
    };
  const text = typeof message.content === 'string' ? message.content : null;
  return { message: { id: message.id, text, toolCalls: [], raw: message }, calls: [], approvals: [], fresh: true };
}

export interface FollowSettings {
  pollIntervalMs: number;
  signal: AbortSignal | undefined;
  /** Keep waiting while approvals are undecided (else they are returned, for the run to settle). */
  waitForApprovals: boolean;
}

/**
 * Reads where a thread stands, waiting while a turn runs elsewhere (or, if asked, while a person
 * has yet to decide an approval). Ends on pending client calls, or on an idle thread whose
 * transcript ends with the agent's answer. An idle thread whose last message is an assistant call
 * is between a decision and its resume (two transactions on the server): still in motion. One
 * that ends with the user's side (results or input) finished its turn without answering.
 */
export async function followThread(
  reader: ThreadReader,
  threadId: string,
  settings: FollowSettings,
): Promise<Step<ThreadReply>> {
  const options = { signal: settings.signal } as CallOptions;
  for (;;) {
    const thread = await reader.get(threadId, options);
    const approvalsOpen = thread.pending_tool_calls.some((call) => call.kind === 'approval');
    const waiting = thread.status === 'running' || (settings.waitForApprovals && approvalsOpen);
    if (!waiting && thread.status === 'pending') return stepFromThread(thread);
    if (!waiting) {
      const messages = await reader.allMessages(threadId, options);
      const last = messages[messages.length - 1];
      if (!last || (last.role === 'assistant' && !(last.tool_calls && last.tool_calls.length > 0)))
        return stepFromTranscript(thread, last);
      if (last.role !== 'assistant') {
        throw new BatonRunError(
          'turn_failed',
          `Thread '${threadId}' ended its turn without an answer (the turn failed or was cancelled); ` +
            `see GET /v1/threads/${threadId}/messages, then send a new message to try again.`,
          threadId,
        );
      }
    }
    await sleep(settings.pollIntervalMs, settings.signal);
  }
}
