/**
 * Where a toolset's calls go. The rule, after CES's openApiToolset `url` field:
 *
 * - Start from the first entry of the document's `servers`, with `{variables}` filled from their
 *   defaults (the spec requires a default for each).
 * - With an override (`url`): if that server URL contains the `$env_var` placeholder, every
 *   occurrence is replaced by the override (CES's import-time substitution); otherwise — including
 *   when the document has no servers at all — the override replaces the whole URL. The second
 *   case is what self-hosting needs: point a published spec at a staging host or a mock.
 * - Without an override, a URL that still has `$env_var`, a missing `servers`, or a relative
 *   server URL (the spec makes those relative to wherever the document was served from, which an
 *   inline spec does not have) is an error, raised when the toolset is created.
 *
 * The result is an absolute http(s) URL without a trailing slash, ready for `base + path`.
 */
import { OpenApiError } from './openapi-error.ts';
import type { OpenApiDocument } from './openapi-types.ts';

export const ENV_VAR_PLACEHOLDER = '$env_var';

function filledTemplate(document: Pick<OpenApiDocument, 'servers'>): string | undefined {
  const server = document.servers[0];
  if (server === undefined) return undefined;
  return server.url.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const variable = server.variables?.[name];
    if (variable === undefined) throw new OpenApiError(`server variable {${name}} has no definition`, 'servers.0.url');
    return variable.default;
  });
}

function absoluteHttpUrl(text: string, where: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OpenApiError(`${JSON.stringify(text)} is not an absolute URL`, where);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OpenApiError(`${JSON.stringify(text)} must be an http or https URL`, where);
  }
  // Credentials in a URL leak into logs and are refused by fetch; they belong in apiAuthentication.
  if (url.username !== '' || url.password !== '')
    throw new OpenApiError('a server URL must not contain credentials', where);
  if (url.hash !== '') throw new OpenApiError('a server URL must not contain a #fragment', where);
  return url.href.replace(/\/+$/, '');
}

/** The absolute base URL for calls; see the module comment for how `override` applies. */
export function serverUrl(document: Pick<OpenApiDocument, 'servers'>, override?: string): string {
  const template = filledTemplate(document);
  const given = override?.trim();
  if (given !== undefined && given !== '') {
    if (template !== undefined && template.includes(ENV_VAR_PLACEHOLDER)) {
      return absoluteHttpUrl(template.split(ENV_VAR_PLACEHOLDER).join(given.replace(/\/+$/, '')), 'url');
    }
    return absoluteHttpUrl(given, 'url');
  }
  if (template === undefined) {
    throw new OpenApiError(
      'the document declares no servers: set the url field (openApiToolset.url or openApiTool.url) to say where the API is',
      'servers',
    );
  }
  if (template.includes(ENV_VAR_PLACEHOLDER)) {
    throw new OpenApiError(
      `the server URL contains the ${ENV_VAR_PLACEHOLDER} placeholder: set the url field (openApiToolset.url or openApiTool.url) to replace it`,
      'servers.0.url',
    );
  }
  if (!/^[a-z][a-z0-9+.-]*:/i.test(template)) {
    throw new OpenApiError(
      `the server URL ${JSON.stringify(template)} is relative: set the url field (openApiToolset.url or openApiTool.url) to the API's absolute address`,
      'servers.0.url',
    );
  }
  return absoluteHttpUrl(template, 'servers.0.url');
}
