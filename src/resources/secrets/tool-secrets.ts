import { readSecretValue } from './secret-values.ts';
import type { Store } from '../../store/store.ts';
import { AuthError } from '../../tools/auth/auth-error.ts';
import type { ServerKeys } from '../keys/server-keys.ts';

/**
 * A secret a tool's credentials refer to, for the tools layer: the CES secret store's value, with
 * its errors (gone, foreign, unreadable) as AuthErrors, which become error results the model and
 * the operator can read instead of failed turns.
 */
export async function readToolSecret(
  store: Store,
  keys: Pick<ServerKeys, 'secrets'>,
  appId: string,
  reference: string,
): Promise<string> {
  try {
    return await readSecretValue(store, keys, appId, reference);
  } catch (error) {
    throw new AuthError('secret_unavailable', error instanceof Error ? error.message : String(error));
  }
}
