import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiClient, type ApiError } from './api-client.ts';
import { AppShell } from './app-shell.tsx';
import { SessionContext, type Session } from './session-context.ts';
import { clearKey, loadKey, saveKey } from './session-key.ts';
import { SignInPage } from './sign-in-page.tsx';

type AuthState =
  { kind: 'checking' } | { kind: 'signed-out'; notice: string | null } | { kind: 'signed-in'; session: Session };

/**
 * Owns the sign-in state. A stored key is re-validated on load (it may have been revoked since),
 * and any 401 later signs the person out with the server's reason rather than leaving a page of
 * failed requests.
 */
export function App() {
  const [auth, setAuth] = useState<AuthState>(() =>
    loadKey() ? { kind: 'checking' } : { kind: 'signed-out', notice: null },
  );

  const signOut = useCallback((notice: string | null) => {
    clearKey();
    setAuth({ kind: 'signed-out', notice });
  }, []);

  const openSession = useCallback(
    async (key: string): Promise<void> => {
      const client = new ApiClient(key, (error: ApiError) => signOut(`The server refused the key: ${error.message}`));
      // Validated with a client that does not sign out on 401: the sign-in form shows that error itself.
      const principal = await new ApiClient(key).me();
      saveKey(key);
      setAuth({ kind: 'signed-in', session: { client, principal } });
    },
    [signOut],
  );

  useEffect(() => {
    const stored = loadKey();
    if (!stored) return;
    openSession(stored).catch((error: Error) => signOut(`Please sign in again: ${error.message}`));
  }, [openSession, signOut]);

  if (auth.kind === 'checking') {
    return (
      <main id="content" class="sign-in">
        <h1>Baton console</h1>
        <p role="status">Checking your key…</p>
      </main>
    );
  }
  if (auth.kind === 'signed-out') return <SignInPage onSignIn={openSession} notice={auth.notice} />;
  return (
    <SessionContext.Provider value={auth.session}>
      <AppShell onSignOut={() => signOut('You signed out.')} />
    </SessionContext.Provider>
  );
}
