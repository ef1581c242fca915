import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient } from './api-client.ts';
import type { Principal } from './api-types.ts';

/** Who is signed in: the client carrying their key and what the server says the key is. */
export interface Session {
  client: ApiClient;
  principal: Principal;
}

export const SessionContext = createContext<Session | null>(null);

/** Pages render only inside a session; reaching one without is a programming error. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}
