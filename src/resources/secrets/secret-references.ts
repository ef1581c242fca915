import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import { formatAppName, RESOURCE_ID_PATTERN, type AppPath } from '../aip/resource-names.ts';
import { asObject } from '../json-objects.ts';

/**
 * Where tools and toolsets name secrets. Baton's own secret store replaces Secret Manager, so an
 * `apiKeySecretVersion` / `clientSecretVersion` names a secret of the same app, in either form:
 * - the app's own: `projects/{p}/locations/{l}/apps/{a}/secrets/{id}`, optionally with
 *   `/versions/latest`;
 * - Secret Manager's, as CES exports it: `projects/{p}/secrets/{id}/versions/{version}` (or the
 *   regional `projects/{p}/locations/{l}/secrets/{id}/versions/{version}`), read as the app's
 *   secret `{id}`, so an exported toolset imports unchanged. The Google Cloud project is not
 *   Baton's and is not compared, and every version (a number, `latest`, an alias) names the one
 *   value Baton keeps per secret.
 * The reference is stored exactly as written. Anything else — a raw key pasted in — is refused,
 * so no credential is ever stored in a resource body.
 */

const LATEST_VERSION = '/versions/latest';
const SECRET_MANAGER_VERSION =
  /^projects\/[^/]{1,128}\/(?:locations\/[^/]{1,128}\/)?secrets\/([^/]+)\/versions\/[A-Za-z0-9_-]{1,64}$/;

/** The secret id a reference names within `app`, or undefined when it is not such a reference. */
export function referencedSecretId(app: AppPath, reference: string): string | undefined {
  const prefix = `${formatAppName(app)}/secrets/`;
  let id: string | undefined;
  if (reference.startsWith(prefix)) {
    id = reference.slice(prefix.length);
    if (id.endsWith(LATEST_VERSION)) id = id.slice(0, -LATEST_VERSION.length);
  } else {
    id = SECRET_MANAGER_VERSION.exec(reference)?.[1];
  }
  return id !== undefined && RESOURCE_ID_PATTERN.test(id) ? id : undefined;
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
  const id = referencedSecretId(app, reference);
  if (id === undefined) {
    throw new BatonError(
      'invalid_secret_reference',
      `${field} must name a secret of this app (${secrets}/<id>, or a Secret Manager version ` +
        `projects/<project>/secrets/<id>/versions/<version>, read as the app's secret <id>), not a ` +
        `credential: Baton never stores raw keys in tools. Create the secret with POST /v1/${secrets}?secretId=<id> ` +
        `and body {"value": "<the credential>"}, then put its name here.`,
      { param: field },
    );
  }
  // The request is right as it stands once the secret exists: FAILED_PRECONDITION, not INVALID_ARGUMENT.
  if (!(await store.secrets.get(appId, id))) {
    const named = reference.startsWith(`${secrets}/`)
      ? ''
      : ` (Baton reads '${reference}' as this app's secret '${id}')`;
    throw new BatonError(
      'referenced_secret_missing',
      `${field} names secret '${id}'${named}, but the app has no secret '${id}'. Create it with ` +
        `POST /v1/${secrets}?secretId=${id} and body {"value": "<the credential>"}, then send this request again.`,
      { param: field, details: { secret: `${secrets}/${id}` } },
    );
  }
}
