import { useEffect, useState } from 'preact/hooks';
import { AlertRegion } from './alert-region.tsx';
import type { Thread, ThreadMessage } from './api-types.ts';
import { href } from './hash-route.ts';
import { useSession } from './session-context.ts';
import { Transcript } from './transcript.tsx';

/** One conversation's transcript, with links to the calls still waiting in it. */
export function ThreadPage({ id }: { id: string }) {
  const { client } = useSession();
  const [thread, setThread] = useState<Thread | null>(null);
  const [messages, setMessages] = useState<ThreadMessage[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);

  async function deleteThread(): Promise<void> {
    if (deleting) return;
    if (
      !window.confirm(
        `Delete thread ${id} and everything it holds? Its pending calls are cancelled. This cannot be undone.`,
      )
    )
      return;
    setDeleting(true);
    try {
      await client.deleteThread(id);
      window.location.hash = href.threads();
    } catch (failure) {
      setError((failure as Error).message);
      setDeleting(false);
    }
  }

  useEffect(() => {
    let alive = true;
    Promise.all([client.getThread(id), client.threadMessages(id)]).then(
      ([state, transcript]) => {
        if (!alive) return;
        setThread(state);
        setMessages(transcript);
      },
      (failure: Error) => alive && setError(failure.message),
    );
    return () => {
      alive = false;
    };
  }, [client, id]);

  return (
    <>
      <p class="breadcrumb">
        <a href={href.threads()}>Threads</a> / <span class="mono">{id}</span>
      </p>
      <h1 tabIndex={-1}>Thread</h1>
      <AlertRegion messages={error ? [error] : []} />
      {thread && (
        <dl class="facts">
          <div>
            <dt>Id</dt>
            <dd class="mono">{thread.id}</dd>
          </div>
          <div>
            <dt>Agent</dt>
            <dd>{thread.agent}</dd>
          </div>
          <div>
            <dt>Status</dt>
            <dd>{thread.status}</dd>
          </div>
        </dl>
      )}
      {thread && thread.pending_tool_calls.length > 0 && (
        <section aria-labelledby="waiting-title">
          <h2 id="waiting-title">Waiting on</h2>
          <ul>
            {thread.pending_tool_calls.map((call) => (
              <li key={call.id}>
                <a href={href.call(call.id)}>{call.name}</a>{' '}
                {call.kind === 'approval' ? '(approval)' : '(client function)'}
              </li>
            ))}
          </ul>
        </section>
      )}
      {thread && (
        <div class="button-row">
          <button type="button" class="danger" aria-disabled={deleting} onClick={() => void deleteThread()}>
            {deleting ? 'Deleting…' : 'Delete thread'}
          </button>
        </div>
      )}
      <h2>Transcript</h2>
      {messages ? <Transcript messages={messages} /> : !error && <p role="status">Loading…</p>}
    </>
  );
}
