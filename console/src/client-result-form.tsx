import { useState } from 'preact/hooks';
import { AlertRegion } from './alert-region.tsx';
import type { AnswerOutcome, ToolCall, ToolDefinition } from './api-types.ts';
import { buildValue, initialDraft, setAt, type Draft } from './schema-model.ts';
import { SchemaForm } from './schema-form.tsx';
import { useSession } from './session-context.ts';

interface Props {
  call: ToolCall;
  /** null when the tool has no response schema or could not be read: JSON is then the only mode. */
  tool: ToolDefinition | null;
  onAnswered(outcome: AnswerOutcome): void;
  /** The server refused (say 409, answered elsewhere): the page shows why and re-reads the call, which may unmount this form. */
  onRefused(message: string): void;
}

type Mode = 'form' | 'json';

/**
 * Answers a client function. With a response schema the result is filled in through a generated
 * form; raw JSON is always one toggle away (for shapes the form cannot express). "Send as an
 * error" swaps both for a message box, because an error is not expected to follow the schema
 * of a successful result.
 */
export function ClientResultForm({ call, tool, onAnswered, onRefused }: Props) {
  const { client } = useSession();
  const schema = tool?.response_schema ?? null;
  const [mode, setMode] = useState<Mode>(schema ? 'form' : 'json');
  const [draft, setDraft] = useState<Draft>(() => (schema ? initialDraft(schema) : ''));
  const [raw, setRaw] = useState('');
  const [asError, setAsError] = useState(false);
  const [errorText, setErrorText] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  /** The content to send, or the problems that stop it. */
  const compose = (): { content: string } | { problems: string[] } => {
    if (asError)
      return errorText.trim() === ''
        ? { problems: ['Write the error message the agent will read.'] }
        : { content: errorText.trim() };
    if (mode === 'json' || !schema)
      return raw.trim() === '' ? { problems: ['Write the result (JSON, or plain text).'] } : { content: raw.trim() };
    const found: string[] = [];
    const value = buildValue(schema, draft, [], true, found);
    return found.length > 0 ? { problems: found } : { content: JSON.stringify(value) };
  };

  const switchMode = () => {
    if (mode === 'form' && schema) {
      // Carry what was filled in over to the JSON box, so switching never loses work.
      const value = buildValue(schema, draft, [], false, []);
      setRaw(value === undefined ? '' : JSON.stringify(value, null, 2));
      setMode('json');
    } else {
      // Back to the form's own values: parsing free JSON back into fields could drop what they cannot hold.
      setMode('form');
    }
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const composed = compose();
    if ('problems' in composed) {
      setProblems(composed.problems);
      return;
    }
    setBusy(true);
    setProblems([]);
    try {
      onAnswered(await client.submitResult(call.id, composed.content, asError));
    } catch (error) {
      onRefused((error as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card stack answer-form" aria-label="Result" onSubmit={(event) => void submit(event)} noValidate>
      {tool?.description && <p class="hint">{tool.description}</p>}
      <div class="field checkbox">
        <input
          id="result-as-error"
          type="checkbox"
          checked={asError}
          onChange={(event) => setAsError(event.currentTarget.checked)}
        />
        <label for="result-as-error">Send as an error</label>
      </div>
      {asError ? (
        <div class="field">
          <label for="result-error-text">Error message</label>
          <textarea
            id="result-error-text"
            rows={3}
            value={errorText}
            onInput={(event) => setErrorText(event.currentTarget.value)}
          />
        </div>
      ) : mode === 'form' && schema ? (
        <fieldset class="result-fields">
          <legend>Result of {call.name}</legend>
          <SchemaForm
            schema={schema}
            draft={draft}
            onChange={(path, value) => setDraft((current) => setAt(current, path, value))}
          />
        </fieldset>
      ) : (
        <div class="field">
          <label for="result-raw">Result (JSON, or plain text)</label>
          {!schema && (
            <p class="hint" id="result-raw-hint">
              This tool declares no response schema, so the result is written by hand.
            </p>
          )}
          <textarea
            id="result-raw"
            class="json-input"
            rows={8}
            spellcheck={false}
            value={raw}
            aria-describedby={schema ? undefined : 'result-raw-hint'}
            onInput={(event) => setRaw(event.currentTarget.value)}
          />
        </div>
      )}
      <div class="button-row">
        <button type="submit" class="primary" aria-disabled={busy}>
          {asError ? 'Send error' : 'Send result'}
        </button>
        {schema && !asError && (
          <button type="button" class="quiet" aria-pressed={mode === 'json'} onClick={switchMode}>
            Edit as JSON
          </button>
        )}
        {busy && <span role="status">Sending…</span>}
      </div>
      <AlertRegion messages={problems} />
    </form>
  );
}
