/**
 * Tool arguments → one HTTP request for an operation. Nothing here touches the network: the
 * result goes to an injected `send` (the egress-guarded fetch in production).
 *
 * Arguments the tool schema does not declare are always refused, whatever the toolset's
 * `ignoreUnknownFields` says: CES's flag is about unknown fields in the API's *response* (see
 * openapi-unknown-fields.ts), and silently dropping an argument the model meant to send would
 * make a call do something other than what it asked for.
 */
import { OpenApiError } from './openapi-error.ts';
import type { OpenApiOperationTool } from './openapi-operations.ts';
import {
  serializeCookieParameter,
  serializeHeaderParameter,
  serializePathParameter,
  serializeQueryParameter,
} from './openapi-parameter-style.ts';
import type { OutgoingRequest, RequestAuth } from './openapi-types.ts';

export interface BuildRequestOptions {
  /** Credentials resolved by the caller; they win over parameters of the same name. */
  auth?: RequestAuth;
}

function acceptHeader(operation: OpenApiOperationTool): string {
  const types = Object.values(operation.responses).flatMap((response) => Object.keys(response.content ?? {}));
  return types.some((type) => /json/i.test(type)) ? 'application/json, */*;q=0.8' : '*/*';
}

function formBody(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new OpenApiError('a form body must be a JSON object', 'body');
  }
  const form = new URLSearchParams();
  for (const [key, item] of Object.entries(value)) {
    for (const entry of Array.isArray(item) ? item : [item]) {
      if (entry === undefined) continue;
      form.append(key, typeof entry === 'object' && entry !== null ? JSON.stringify(entry) : String(entry ?? ''));
    }
  }
  return form.toString();
}

/**
 * The request for calling `operation` with `args` against `serverUrl` (absolute, no trailing
 * slash). Throws OpenApiError for arguments that cannot be sent: unknown names, a missing
 * required one, a non-object `args`.
 */
export function buildRequest(
  operation: OpenApiOperationTool,
  args: unknown,
  serverUrl: string,
  options: BuildRequestOptions = {},
): OutgoingRequest {
  const given = args ?? {};
  if (typeof given !== 'object' || Array.isArray(given)) throw new OpenApiError('the arguments must be a JSON object');
  const values = given as Record<string, unknown>;

  const known = new Set(operation.bindings.map((binding) => binding.argName));
  if (operation.body !== undefined) known.add(operation.body.argName);
  const unknown = Object.keys(values).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new OpenApiError(
      `unknown argument${unknown.length === 1 ? '' : 's'} ${unknown.map((name) => `'${name}'`).join(', ')} ` +
        `for ${operation.name}; it takes ${[...known].map((name) => `'${name}'`).join(', ') || 'no arguments'}`,
    );
  }

  let path = operation.path;
  const query: string[] = [];
  const headers: Record<string, string> = { accept: acceptHeader(operation) };
  const cookies: string[] = [];
  for (const binding of operation.bindings) {
    const value = values[binding.argName];
    if (value === undefined || value === null) {
      if (binding.required)
        throw new OpenApiError(
          `missing required argument '${binding.argName}' (${binding.in} parameter '${binding.name}')`,
        );
      continue;
    }
    switch (binding.in) {
      case 'path':
        path = path.split(`{${binding.name}}`).join(serializePathParameter(binding, value));
        break;
      case 'query':
        query.push(...serializeQueryParameter(binding, value));
        break;
      case 'header':
        headers[binding.name.toLowerCase()] = serializeHeaderParameter(binding, value);
        break;
      case 'cookie':
        cookies.push(serializeCookieParameter(binding, value));
        break;
    }
  }
  const leftover = /\{([^}]+)\}/.exec(path);
  if (leftover !== null) throw new OpenApiError(`path parameter '${leftover[1]}' of ${operation.path} has no value`);
  if (cookies.length > 0) headers.cookie = cookies.join('; ');

  let body: string | undefined;
  const bodyValue = operation.body === undefined ? undefined : values[operation.body.argName];
  if (operation.body !== undefined && bodyValue !== undefined) {
    body = operation.body.contentType === 'application/json' ? JSON.stringify(bodyValue) : formBody(bodyValue);
    headers['content-type'] = operation.body.contentType;
  } else if (operation.body?.required === true) {
    throw new OpenApiError(`missing required argument 'body' (the request body of ${operation.name})`);
  }

  for (const [name, value] of Object.entries(options.auth?.headers ?? {})) headers[name.toLowerCase()] = value;
  const authQuery = Object.entries(options.auth?.query ?? {});
  if (authQuery.length > 0) {
    const authNames = new Set(authQuery.map(([name]) => `${encodeURIComponent(name)}=`));
    const kept = query.filter((pair) => ![...authNames].some((prefix) => pair.startsWith(prefix)));
    query.length = 0;
    query.push(
      ...kept,
      ...authQuery.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`),
    );
  }

  const url = `${serverUrl}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  const credentials = options.auth && {
    headers: Object.keys(options.auth.headers ?? {}),
    query: authQuery.map(([name]) => name),
  };
  return {
    method: operation.method.toUpperCase(),
    url,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(credentials ? { credentials } : {}),
  };
}
