import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ErrorCode } from '../../domain/errors/error-catalogue.ts';
import { durationInRange } from './duration.ts';
import type { DurationRange } from '../../domain/duration-ranges.ts';
import type { AppRecord, JsonObject, JsonValue } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import type { OpenApiCompiler } from '../../tools/openapi/openapi-pool.ts';
import { assertOneOf } from '../aip/union-check.ts';
import type { AppPath } from '../aip/resource-names.ts';
import { assertSecretReference, referencedSecretId } from '../secrets/secret-references.ts';
import { asObject } from '../json-objects.ts';
import { CaCertificateError, caCertificatesOf } from '../../tools/http/custom-ca.ts';

/**
 * Rules shared by Tool and Toolset bodies, checked on the final resource (after an update mask was
 * applied). `field` arguments are full request paths (`toolset.mcpToolset.serverAddress`) so the
 * BadRequest field violation points at what to fix.
 */

/** The app a body belongs to: secrets and references are resolved in it. */
export interface RuleContext {
  store: Store;
  app: AppRecord;
  path: AppPath;
  /** Reads OpenAPI documents off the event loop, within the operator's limits. */
  openApi: OpenApiCompiler;
}

function invalid(field: string, message: string, code: ErrorCode = 'invalid_field'): never {
  throw new BatonError(code, message, { param: field });
}

/** A required non-empty string. */
export function requireText(object: JsonObject, key: string, prefix: string): string {
  const value = object[key];
  if (typeof value !== 'string' || value.trim() === '')
    invalid(`${prefix}.${key}`, `${prefix}.${key} is required.`, 'required_field');
  return value;
}

/** Refuses the members Baton does not implement, each with its own explanation. */
export function refuseUnsupported(object: JsonObject, reasons: Record<string, string>, prefix: string): void {
  for (const [member, reason] of Object.entries(reasons)) {
    if (object[member] !== undefined && object[member] !== null)
      invalid(`${prefix}.${member}`, reason, 'unsupported_field');
  }
}

/** A protobuf Duration (`"30s"`, `"1.5s"`) within `range`; `what` says what the duration bounds. */
export function checkDuration(value: JsonValue | undefined, field: string, range: DurationRange, what: string): void {
  if (value === undefined) return;
  if (typeof value === 'string' && durationInRange(value, range) !== undefined) return;
  const got = JSON.stringify(value).slice(0, 40);
  invalid(
    field,
    `${field} (${what}) must be a duration from "${range.min}s" to "${range.max}s" (${range.maxInWords}), ` +
      `in seconds with an "s" suffix such as "30s" or "1.5s"; got ${got}.`,
  );
}

export function checkHttpUrl(value: JsonValue | undefined, field: string): void {
  if (value === undefined) return;
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    invalid(field, `${field} must be an http or https URL, e.g. "https://example.com/mcp/".`);
}

const CONTEXT_VARIABLE = /^\$context\.variables\.[A-Za-z_][A-Za-z0-9_]*$/;

/** Values that must come from session variables at run time, so the resource holds no credential. */
export function checkContextVariable(value: JsonValue | undefined, field: string): void {
  if (typeof value === 'string' && CONTEXT_VARIABLE.test(value)) return;
  // The value is not echoed: it may be the very token that must not be stored.
  invalid(
    field,
    `${field} must be a session variable reference of the form $context.variables.NAME; the value is read from the session at run time and never stored.`,
  );
}

export function checkToolFakeConfig(value: JsonValue | undefined, field: string): void {
  const codeBlock = asObject(asObject(value)?.codeBlock);
  if (!codeBlock) return;
  if (codeBlock.pythonCode !== undefined) {
    invalid(
      `${field}.codeBlock.pythonCode`,
      `${field}.codeBlock.pythonCode is not supported by Baton (there is no Python runtime): use ` +
        `jsCode with the same fake_tool_call / fake_<toolId> functions in JavaScript.`,
      'unsupported_field',
    );
  }
  requireText(codeBlock, 'jsCode', `${field}.codeBlock`);
}

const CERT_FORMS =
  'an X.509 CA certificate as base64-encoded DER (as CES sends it) or PEM (-----BEGIN CERTIFICATE-----…)';

/**
 * TlsConfig: at least one CA certificate (CES marks `caCerts` required), each entry's `cert`
 * parsed now, with the parser the HTTP client uses, so a bad one is refused naming its entry
 * instead of failing every call later as a TLS error.
 */
export function checkTlsConfig(value: JsonValue | undefined, field: string): void {
  const tls = asObject(value);
  if (!tls) return;
  const certs = Array.isArray(tls.caCerts) ? tls.caCerts : [];
  if (certs.length === 0) {
    invalid(
      `${field}.caCerts`,
      `${field}.caCerts must list at least one certificate ({"displayName": …, "cert": …}); leave ${field} ` +
        `out to trust only the usual certificate authorities.`,
      'required_field',
    );
  }
  certs.forEach((entry, index) => {
    const at = `${field}.caCerts[${index}].cert`;
    const cert = asObject(entry)?.cert;
    if (typeof cert !== 'string' || cert.trim() === '')
      invalid(at, `${at} is required: ${CERT_FORMS}.`, 'required_field');
    try {
      caCertificatesOf(cert);
    } catch (error) {
      if (!(error instanceof CaCertificateError)) throw error;
      invalid(at, `${at} is not a certificate: ${error.message}. Expected ${CERT_FORMS}.`);
    }
  });
}

const AUTH_MEMBERS = [
  'apiKeyConfig',
  'oauthConfig',
  'bearerTokenConfig',
  'serviceAgentIdTokenAuthConfig',
  'serviceAccountAuthConfig',
];

/** ApiAuthentication: at most one member; secrets by reference only; no Google Cloud identities. */
export async function checkApiAuthentication(
  context: RuleContext,
  value: JsonValue | undefined,
  field: string,
): Promise<void> {
  const auth = asObject(value);
  if (!auth) return;
  assertOneOf(auth, AUTH_MEMBERS, field, { required: false, name: 'auth_config' });
  refuseUnsupported(
    auth,
    {
      serviceAgentIdTokenAuthConfig:
        `${field}.serviceAgentIdTokenAuthConfig is not supported by Baton (it mints Google Cloud identity ` +
        `tokens); use apiKeyConfig, oauthConfig or bearerTokenConfig.`,
      serviceAccountAuthConfig:
        `${field}.serviceAccountAuthConfig is not supported by Baton (it uses Google Cloud service ` +
        `accounts); use apiKeyConfig, oauthConfig or bearerTokenConfig.`,
    },
    field,
  );
  const apiKey = asObject(auth.apiKeyConfig);
  if (apiKey) {
    const prefix = `${field}.apiKeyConfig`;
    requireText(apiKey, 'keyName', prefix);
    const reference = requireText(apiKey, 'apiKeySecretVersion', prefix);
    if (apiKey.requestLocation !== 'HEADER' && apiKey.requestLocation !== 'QUERY_STRING') {
      invalid(
        `${prefix}.requestLocation`,
        `${prefix}.requestLocation is required: HEADER or QUERY_STRING.`,
        'required_field',
      );
    }
    await assertSecretReference(
      context.store,
      context.app.id,
      context.path,
      reference,
      `${prefix}.apiKeySecretVersion`,
    );
  }
  const oauth = asObject(auth.oauthConfig);
  if (oauth) {
    const prefix = `${field}.oauthConfig`;
    requireText(oauth, 'clientId', prefix);
    const reference = requireText(oauth, 'clientSecretVersion', prefix);
    requireText(oauth, 'tokenEndpoint', prefix);
    checkHttpUrl(oauth.tokenEndpoint, `${prefix}.tokenEndpoint`);
    await assertSecretReference(
      context.store,
      context.app.id,
      context.path,
      reference,
      `${prefix}.clientSecretVersion`,
    );
  }
  const bearer = asObject(auth.bearerTokenConfig);
  if (bearer) {
    const tokenField = `${field}.bearerTokenConfig.token`;
    // CES reads bearer tokens from the session only; a secret's name here is a common slip.
    if (typeof bearer.token === 'string' && referencedSecretId(context.path, bearer.token) !== undefined) {
      invalid(
        tokenField,
        `${tokenField} takes a session variable ($context.variables.NAME), as in CES, not a secret. For a ` +
          `fixed token kept as a secret, use apiKeyConfig instead: keyName "Authorization", requestLocation ` +
          `HEADER, and a secret whose value is "Bearer <token>".`,
      );
    }
    checkContextVariable(bearer.token, tokenField);
  }
}

/** Why `serviceDirectoryConfig` is refused wherever CES allows it. */
export const SERVICE_DIRECTORY_REFUSAL =
  'serviceDirectoryConfig is not supported by Baton (Service Directory is a Google Cloud service); give a reachable URL instead.';

/** Baton's `requireApproval`: a person approves each call of a server tool before it runs. */
export function checkRequireApproval(
  body: JsonObject,
  field: string,
  kind: { key: string; executor: 'client' | 'server' } | undefined,
): void {
  if (body.requireApproval === undefined) return;
  if (typeof body.requireApproval !== 'boolean') invalid(field, `${field} must be true or false.`);
  if (body.requireApproval && kind?.executor === 'client') {
    invalid(
      field,
      `${field} applies to tools Baton runs; a ${kind.key} already waits for your application, which can ask a person itself.`,
    );
  }
}

/**
 * Baton's `idempotent`: a call of this server tool may run twice with the same arguments, so the
 * replica that takes over a turn whose process died mid-call runs it again instead of reporting
 * its outcome as unknown. Off unless set: only the tool's owner knows (a GET that creates, an MCP
 * hint the server may not honour).
 */
export function checkIdempotent(
  body: JsonObject,
  field: string,
  kind: { key: string; executor: 'client' | 'server' } | undefined,
): void {
  if (body.idempotent === undefined) return;
  if (typeof body.idempotent !== 'boolean') invalid(field, `${field} must be true or false.`);
  if (body.idempotent && kind?.executor === 'client') {
    invalid(field, `${field} applies to tools Baton runs; a ${kind.key} is run by your application, never by Baton.`);
  }
}
