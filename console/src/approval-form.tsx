import { useRef, useState } from 'preact/hooks';
import { AlertRegion } from './alert-region.tsx';
import type { AnswerOutcome, ToolCall } from './api-types.ts';
import { useSession } from './session-context.ts';

interface Props {
  call: ToolCall;
  onAnswered(outcome: AnswerOutcome): void;
  /** The server refused (say 409, decided elsewhere): the page shows why and re-reads the call, which may unmount this form. */
  onRefused(message: string): void;
}

/** Approve or deny a server tool call waiting for a person. A denial needs a reason: the model reads it. */
export function ApprovalForm({ call, onAnswered, onRefused }: Props) {
  const { client } = useSession();
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<string[]>([]);
  const [reasonMissing, setReasonMissing] = useState(false);
  const [busy, setBusy] = useState(false);
  const reasonRef = useRef<HTMLTextAreaElement>(null);

  const decide = async (approve: boolean) => {
    if (busy) return;
    if (!approve && reason.trim() === '') {
      setReasonMissing(true);
      setErrors(['Write a reason to deny: the agent reads it.']);
      reasonRef.current?.focus();
      return;
    }
    setBusy(true);
    setErrors([]);
    try {
      onAnswered(await client.decide(call.id, approve, reason));
    } catch (error) {
      onRefused((error as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card stack answer-form" aria-label="Decision" onSubmit={(event) => event.preventDefault()}>
      <div class="field">
        <label for="decision-reason">Reason (required to deny)</label>
        <textarea
          id="decision-reason"
          ref={reasonRef}
          rows={3}
          value={reason}
          aria-invalid={reasonMissing}
          aria-describedby="decision-hint"
          onInput={(event) => {
            setReason(event.currentTarget.value);
            setReasonMissing(false);
          }}
        />
        <p class="hint" id="decision-hint">
          Approving runs the tool with the arguments above. Denying answers the agent with an error carrying your
          reason.
        </p>
      </div>
      <div class="button-row">
        <button type="button" class="primary" aria-disabled={busy} onClick={() => void decide(true)}>
          Approve
        </button>
        <button type="button" class="danger" aria-disabled={busy} onClick={() => void decide(false)}>
          Deny
        </button>
        {busy && <span role="status">Sending…</span>}
      </div>
      <AlertRegion messages={errors} />
    </form>
  );
}
