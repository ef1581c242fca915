import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import { formatAppName, RESOURCE_ID_PATTERN, type AppPath } from '../aip/resource-names.ts';
import { asObject } from '../json-objects.ts';

/**
 * Where tools and toolsets name secrets. Baton's own secret store replaces Secret Manager, so an
 * `apiKeySecretVersion` / `clientSecretVersion` must be the name of a secret of the same app:
 * `projects/{p}/locations/{l}/apps/{a}/secrets/{id}`, optionally with `/versions/latest` (Baton
 * keeps one version per secret; the suffix is accepted so CES-style names work, and the
 * reference is stored exactly as written). Anything else — a raw key pasted in — is refused, so
 * no credential is ever stored in a resource body.
 */

const LATEST_VERSION = '/versions/latest';

/** The secret id a reference names within `app`, or undefined when it is not such a reference. */
export function referencedSecretId(app: AppPath, reference: string): string | undefined {
  const prefix = `${formatAppName(app)}/secrets/`;
  if (!reference.startsWith(prefix)) return undefined;
  let id = reference.slice(prefix.length);
  if (id.endsWith(LATEST_VERSION)) id = id.slice(0, -LATEST_VERSION.length);
  return RESOURCE_ID_PATTERN.test(id) ? id : undefined;
}

export interface SecretReference {
  /** Where the reference sits in the resource, e.g. `mcpToolset.apiAuthentication.apiKeyConfig.apiKeySecretVersion`. */
  path: string;
  reference: string;
}

/** Every `apiAuthentication` in a Tool or Toolset body: one per union member that has it. */
export function authenticationsOf(body: JsonObject): { path: string; authentication: JsonObject }[] {
  const found: { path: string; authentication: JsonObject }[] = [];
  for (const [member, value] of Object.entries(body)) {
    const authentication = asObject(asObject(value)?.apiAuthentication);
    if (authentication) found.push({ path: `${member}.apiAuthentication`, authentication });
  }
  return found;
}

/** The secret references of a Tool or Toolset body. */
export function secretReferencesOf(body: JsonObject): SecretReference[] {
  const references: SecretReference[] = [];
  for (const { path, authentication } of authenticationsOf(body)) {
    const apiKey = asObject(authentication.apiKeyConfig)?.apiKeySecretVersion;
    if (typeof apiKey === 'string')
      references.push({ path: `${path}.apiKeyConfig.apiKeySecretVersion`, reference: apiKey });
    const clientSecret = asObject(authentication.oauthConfig)?.clientSecretVersion;
    if (typeof clientSecret === 'string')
      references.push({ path: `${path}.oauthConfig.clientSecretVersion`, reference: clientSecret });
  }
  return references;
}

/**
 * Checks that `reference` names an existing secret of the app. The message never repeats the
 * value: when it is a raw key, echoing it would copy the credential into logs and clients.
 */
export async function assertSecretReference(
  store: Store,
  appId: string,
  app: AppPath,
  reference: string,
  field: string,
): Promise<void> {
  const secrets = `${formatAppName(app)}/secrets`;
  const howTo = `Create the secret with POST /v1/${secrets}?secretId=<id> and body {"value": "<the credential>"}, then put its name (${secrets}/<id>) here`;
  const id = referencedSecretId(app, reference);
  if (id === undefined) {
    throw new BatonError(
      'invalid_secret_reference',
      `${field} must be the resource name of a secret of this app (${secrets}/<id>), not a credential: Baton never stores raw keys in tools. ${howTo}.`,
      { param: field },
    );
  }
  if (!(await store.secrets.get(appId, id))) {
    throw new BatonError(
      'invalid_secret_reference',
      `${field} refers to secret '${secrets}/${id}', which does not exist. ${howTo}.`,
      { param: field },
    );
  }
}
