import { useCallback, useEffect, useState } from 'preact/hooks';
import { AlertRegion } from './alert-region.tsx';
import type { AnswerOutcome, ThreadMessage, ToolCall, ToolDefinition } from './api-types.ts';
import { AnswerOutcomeView } from './answer-outcome.tsx';
import { ApprovalForm } from './approval-form.tsx';
import { CallFacts } from './call-facts.tsx';
import { KIND_LABEL, prettyJson, STATE_LABEL } from './call-labels.ts';
import { ClientResultForm } from './client-result-form.tsx';
import { href } from './hash-route.ts';
import { LeasedCallNotice } from './leased-call-notice.tsx';
import { useNow } from './relative-time.ts';
import { useSession } from './session-context.ts';
import { Transcript } from './transcript.tsx';
import { WorkerBadge } from './worker-facts.tsx';
import { liveLease } from './worker-lease.ts';

type ToolState = { kind: 'loading' } | { kind: 'ready'; tool: ToolDefinition | null; notice: string | null };

/** One call: its conversation, arguments and deadline, and the form that answers it. */
export function CallPage({ id }: { id: string }) {
  const { client } = useSession();
  const [call, setCall] = useState<ToolCall | null>(null);
  const [messages, setMessages] = useState<ThreadMessage[] | null>(null);
  const [tool, setTool] = useState<ToolState>({ kind: 'loading' });
  const [errors, setErrors] = useState<string[]>([]);
  const [outcome, setOutcome] = useState<AnswerOutcome | null>(null);
  const now = useNow();
  const held = call === null ? null : liveLease(call, now);
  const heldUntil = held?.expires_at;

  const reload = useCallback(async () => {
    try {
      const current = await client.getCall(id);
      setCall(current);
      setMessages(await client.threadMessages(current.thread_id));
      return current;
    } catch (error) {
      setErrors([(error as Error).message]);
      return null;
    }
  }, [client, id]);

  useEffect(() => {
    void reload().then((current) => {
      // Only an open client call needs its tool: the form is built from the response schema.
      if (!current || current.state !== 'pending' || current.kind === 'approval' || current.kind === 'server') return;
      client
        .getCallTool(id)
        .then((definition) => setTool({ kind: 'ready', tool: definition, notice: null }))
        .catch((error: Error) =>
          setTool({
            kind: 'ready',
            tool: null,
            notice: `The tool's response schema could not be read (${error.message}); answer with JSON.`,
          }),
        );
    });
  }, [client, id, reload]);

  // When the lease runs out the worker has either renewed it or let it lapse; the call read just
  // after says which, so the form comes back promptly when a person may answer, and not before.
  useEffect(() => {
    if (heldUntil === undefined) return;
    const ends = Date.parse(heldUntil);
    if (Number.isNaN(ends)) return;
    const timer = setTimeout(
      () => {
        // A failed read changes nothing: the clock alone still ends the lease on screen.
        client.getCall(id).then(setCall, () => {});
      },
      Math.max(0, ends - Date.now()) + 1_000,
    );
    return () => clearTimeout(timer);
  }, [client, id, heldUntil]);

  const refused = (message: string) => {
    setErrors([message]);
    void reload();
  };

  const answered = (result: AnswerOutcome) => {
    setErrors([]);
    setOutcome(result);
    setCall(result.tool_call);
    void client
      .threadMessages(result.tool_call.thread_id)
      .then(setMessages, (error: Error) => setErrors([`Could not reload the conversation: ${error.message}`]));
  };

  if (!call) {
    return (
      <>
        <h1 tabIndex={-1}>Tool call</h1>
        <AlertRegion messages={errors} />
        {errors.length === 0 && <p role="status">Loading…</p>}
        <p>
          <a href={href.inbox()}>Back to the inbox</a>
        </p>
      </>
    );
  }

  const pending = call.state === 'pending' && outcome === null;
  return (
    <>
      <p class="breadcrumb">
        <a href={href.inbox()}>Inbox</a> / <span class="mono">{call.id}</span>
      </p>
      <div class="page-head">
        <h1 tabIndex={-1}>{call.name}</h1>
        <span class={`badge badge-${call.kind}`}>{KIND_LABEL[call.kind]}</span>
        <WorkerBadge call={call} />
        <span class={`badge state-${call.state}`}>{STATE_LABEL[call.state]}</span>
      </div>
      <CallFacts call={call} now={now} />
      <h2>Arguments</h2>
      <pre class="json" aria-label="Arguments">
        {prettyJson(call.input)}
      </pre>
      <AlertRegion messages={errors} />
      {pending && (
        <section aria-labelledby="answer-title">
          <h2 id="answer-title">{call.kind === 'approval' ? 'Decision' : 'Answer'}</h2>
          {held ? (
            <LeasedCallNotice lease={held} now={now} />
          ) : call.kind === 'approval' ? (
            <ApprovalForm call={call} onAnswered={answered} onRefused={refused} />
          ) : tool.kind === 'loading' ? (
            <p role="status">Loading the tool…</p>
          ) : (
            <>
              {tool.notice && <p class="notice">{tool.notice}</p>}
              <ClientResultForm call={call} tool={tool.tool} onAnswered={answered} onRefused={refused} />
            </>
          )}
        </section>
      )}
      <div aria-live="polite">{outcome && <AnswerOutcomeView outcome={outcome} />}</div>
      {!pending && !outcome && call.result && (
        <section aria-labelledby="result-title">
          <h2 id="result-title">Result{call.result.is_error ? ' (error)' : ''}</h2>
          <pre class="json">{prettyJson(call.result.content)}</pre>
        </section>
      )}
      <section aria-labelledby="conversation-title">
        <h2 id="conversation-title">Conversation</h2>
        <p>
          <a href={href.thread(call.thread_id)}>Open the thread {call.thread_id}</a>
        </p>
        {messages ? (
          <Transcript messages={messages} highlight={call.id} />
        ) : (
          <p role="status">Loading the conversation…</p>
        )}
      </section>
    </>
  );
}
