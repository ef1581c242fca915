import { randomBytes } from 'node:crypto';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { SecretDecryptionError } from '../../tools/secrets/secret-cipher.ts';
import type { ServerKeys } from '../keys/server-keys.ts';

/**
 * Signing secrets in the Standard Webhooks format: `whsec_` and 24 random bytes in base64. Stored
 * encrypted with the server's secrets key, bound to the app and endpoint (associated data), and
 * shown once, at creation and rotation.
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function boundTo(appId: string, endpointId: string): string {
  return `${appId}/webhook-endpoints/${endpointId}`;
}

export function sealWebhookSecret(
  keys: Pick<ServerKeys, 'secrets'>,
  appId: string,
  endpointId: string,
  secret: string,
): string {
  return keys.secrets.encrypt(secret, boundTo(appId, endpointId));
}

export function openWebhookSecret(
  keys: Pick<ServerKeys, 'secrets'>,
  appId: string,
  endpointId: string,
  ciphertext: string,
): string {
  try {
    return keys.secrets.decrypt(ciphertext, boundTo(appId, endpointId));
  } catch (error) {
    if (error instanceof SecretDecryptionError)
      throw new BatonError(
        'secret_unreadable',
        `The signing secret of webhook endpoint '${endpointId}' cannot be read: ${error.message}.`,
      );
    throw error;
  }
}
