import type { ServerKeys } from '../../../server/build-server.ts';
import type { Store } from '../../../store/store.ts';
import { SecretDecryptionError } from '../../../tools/secrets/secret-cipher.ts';
import { cesError } from '../ces-errors.ts';
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
    throw cesError(
      'INVALID_ARGUMENT',
      'REQUIRED_FIELD',
      `${field} is required: the secret's value as a non-empty string.`,
      { field },
    );
  }
  if (Buffer.byteLength(value, 'utf8') > MAX_SECRET_BYTES) {
    throw cesError(
      'INVALID_ARGUMENT',
      'SECRET_TOO_LARGE',
      `${field} is larger than ${MAX_SECRET_BYTES} bytes (64 KiB) in UTF-8.`,
      { field },
    );
  }
  try {
    return keys.secrets.encrypt(value, `${appId}/${secretId}`);
  } catch (error) {
    if (error instanceof TypeError)
      throw cesError(
        'INVALID_ARGUMENT',
        'INVALID_SECRET_VALUE',
        `${field} is not well-formed Unicode (it contains a lone surrogate).`,
        { field },
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
  if (!app) throw cesError('NOT_FOUND', 'APP_NOT_FOUND', `App '${appId}' no longer exists.`);
  const secretId = referencedSecretId({ project: app.project, location: app.location, app: app.name }, secretName);
  if (secretId === undefined) {
    throw cesError(
      'FAILED_PRECONDITION',
      'INVALID_SECRET_REFERENCE',
      `'${secretName.slice(0, 200)}' is not the name of a secret of app '${app.name}'.`,
    );
  }
  const record = await store.secrets.get(appId, secretId);
  if (!record) {
    throw cesError(
      'FAILED_PRECONDITION',
      'SECRET_NOT_FOUND',
      `Secret '${secretName}' no longer exists; create it again or change the tool that refers to it.`,
    );
  }
  try {
    return keys.secrets.decrypt(record.ciphertext, `${appId}/${secretId}`);
  } catch (error) {
    // The cipher's messages never contain the value; they say which key is expected.
    if (error instanceof SecretDecryptionError)
      throw cesError('INTERNAL', 'SECRET_UNREADABLE', `Secret '${secretName}' cannot be read: ${error.message}.`);
    throw error;
  }
}
