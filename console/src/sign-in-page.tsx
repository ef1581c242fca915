import { useState } from 'preact/hooks';

interface Props {
  onSignIn(key: string): Promise<void>;
  /** Why the person is here again (a refused key, a sign-out), shown above the form. */
  notice: string | null;
}

/** The key is checked by the server (GET /v1/me) before anything is stored. */
export function SignInPage({ onSignIn, notice }: Props) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (key.trim() === '') {
      setError('Enter an API key.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSignIn(key.trim());
    } catch (failure) {
      setError((failure as Error).message);
      setBusy(false);
    }
  };

  return (
    <main id="content" class="sign-in">
      <h1>Baton console</h1>
      <p>Decide approvals and answer client-executed tool calls waiting on your agents.</p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={(event) => void submit(event)} class="card stack" aria-describedby="key-help">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
          aria-invalid={error !== null}
          aria-describedby={error ? 'sign-in-error' : undefined}
        />
        <p id="key-help" class="hint">
          The key is kept in this tab only (session storage) and sent to this server in the Authorization header.
        </p>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <div id="sign-in-error" role="alert" class="alert-region">
          {error && <p class="error">{error}</p>}
        </div>
      </form>
    </main>
  );
}
