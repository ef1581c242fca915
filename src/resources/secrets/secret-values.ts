import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ServerKeys } from '../keys/server-keys.ts';
import type { Store } from '../../store/store.ts';
import { SecretDecryptionError } from '../../tools/secrets/secret-cipher.ts';
import { referencedSecretId } from './secret-references.ts';

/**
 * Secret values in and out of the store. Only ciphertext is stored, bound to `{appId}/{secretId}`
 * (associated data), so a row copied to another secret or app does not decrypt. No message here
 * ever contains a value.
 */

export const MAX_SECRET_BYTES = 64 * 1024;

/** Checks a new value and encrypts it for `appId`/`secretId`. */
export function sealSecretValue(
  keys: Pick<ServerKeys, 'secrets'>,
  appId: string,
  secretId: string,
  value: unknown,
  field: string,
): string {
  if (typeof value !== 'string' || value === '') {
    throw new BatonError('required_field', `${field} is required: the secret's value as a non-empty string.`, {
      param: field,
    });
  }
  if (Buffer.byteLength(value, 'utf8') > MAX_SECRET_BYTES) {
    throw new BatonError('secret_too_large', `${field} is larger than ${MAX_SECRET_BYTES} bytes (64 KiB) in UTF-8.`, {
      param: field,
    });
  }
  try {
    return keys.secrets.encrypt(value, `${appId}/${secretId}`);
  } catch (error) {
    if (error instanceof TypeError)
      throw new BatonError(
        'invalid_secret_value',
        `${field} is not well-formed Unicode (it contains a lone surrogate).`,
        { param: field },
      );
    throw error;
  }
}

/**
 * The plaintext of the secret a tool or toolset references (`apiKeySecretVersion`,
 * `clientSecretVersion`), for the executors that call remote APIs. `secretName` may end in
 * `/versions/latest`. Missing or foreign secrets are FAILED_PRECONDITION: the resource that
 * refers to it must be fixed, not the request that ran it.
 */
export async function readSecretValue(
  store: Store,
  keys: Pick<ServerKeys, 'secrets'>,
  appId: string,
  secretName: string,
): Promise<string> {
  const app = await store.apps.get(appId);
  if (!app) throw new BatonError('app_not_found', `App '${appId}' no longer exists.`);
  const secretId = referencedSecretId({ project: app.project, location: app.location, app: app.name }, secretName);
  if (secretId === undefined) {
    throw new BatonError(
      'invalid_secret_reference',
      `'${secretName.slice(0, 200)}' is not the name of a secret of app '${app.name}'.`,
    );
  }
  const record = await store.secrets.get(appId, secretId);
  if (!record) {
    throw new BatonError(
      'secret_not_found',
      `Secret '${secretName}' no longer exists; create it again or change the tool that refers to it.`,
    );
  }
  try {
    return keys.secrets.decrypt(record.ciphertext, `${appId}/${secretId}`);
  } catch (error) {
    // The cipher's messages never contain the value; they say which key is expected.
    if (error instanceof SecretDecryptionError)
      throw new BatonError('secret_unreadable', `Secret '${secretName}' cannot be read: ${error.message}.`);
    throw error;
  }
}
