/**
 * Reads an OpenAPI document given inline (JSON or YAML text) into a validated, dereferenced,
 * typed view. Parsing never touches the network or the file system: a toolset spec comes from a
 * user, and resolving `$ref: http://169.254.169.254/...` or `$ref: /etc/passwd` on their behalf
 * would be an SSRF / file-read hole, so external references are refused before the parser runs
 * (the parser itself is also configured not to resolve them).
 */
import { dereference, MissingPointerError, validate, type ParserOptions } from '@readme/openapi-parser';
import YAML from 'yaml';
import { OpenApiError, joinWhere } from './openapi-error.ts';
import { measureExpansion } from './openapi-expansion.ts';
import { checkDocumentSize, DEFAULT_OPENAPI_LIMITS, type OpenApiLimits } from './openapi-limits.ts';
import type { JsonObject, OpenApiDocument, OpenApiPathItem, OpenApiServer } from './openapi-types.ts';
import { describeValidationErrors } from './openapi-validation-message.ts';

export { serverUrl } from './openapi-server-url.ts';

const PARSER_OPTIONS: ParserOptions = {
  resolve: { external: false, file: false },
  // Recursive schemas (a Node with children: Node[]) stay as `$ref` so the view remains a tree
  // that can be cloned and serialised; schema conversion turns those into open schemas.
  dereference: { circular: 'ignore' },
  timeoutMs: 10_000,
};

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') throw new OpenApiError('the OpenAPI document is empty');
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch (error) {
      throw new OpenApiError(`the document is neither JSON nor YAML: not valid JSON: ${(error as Error).message}`);
    }
  }
  try {
    // The alias cap stops "billion laughs" documents; duplicate keys are already errors in yaml v2.
    return YAML.parse(trimmed, { maxAliasCount: 100 });
  } catch (error) {
    throw new OpenApiError(
      `the document is neither JSON nor YAML: not valid YAML: ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

function checkVersion(document: JsonObject): '3.0' | '3.1' {
  if (document.swagger !== undefined) {
    throw new OpenApiError(
      `Swagger ${String(document.swagger)} documents are not supported: convert the document to OpenAPI ` +
        `3.x first (for example with swagger2openapi or the Swagger Editor's "Convert to OpenAPI 3")`,
      'swagger',
    );
  }
  const openapi = document.openapi;
  if (openapi === undefined)
    throw new OpenApiError('not an OpenAPI document: the `openapi` version field is missing', 'openapi');
  const line = typeof openapi === 'string' ? /^3\.([01])\.\d+(-.+)?$/.exec(openapi) : null;
  if (line === null) {
    throw new OpenApiError(
      `OpenAPI version ${JSON.stringify(openapi)} is not supported (3.0.x and 3.1.x are)`,
      'openapi',
    );
  }
  return line[1] === '0' ? '3.0' : '3.1';
}

/** Every `$ref` with where it sits; refuses the first one that points outside the document. */
function collectRefs(node: unknown, path: (string | number)[], found: Map<string, string>): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => collectRefs(item, [...path, index], found));
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      if (!value.startsWith('#')) {
        throw new OpenApiError(
          `external $ref ${JSON.stringify(value)} is not allowed: only references inside the document ("#/...") are resolved, never files or URLs`,
          joinWhere([...path, '$ref']),
        );
      }
      if (!found.has(value)) found.set(value, joinWhere([...path, '$ref']));
    } else {
      collectRefs(value, [...path, key], found);
    }
  }
}

async function dereferenced(document: JsonObject, refs: Map<string, string>): Promise<JsonObject> {
  try {
    return (await dereference(structuredClone(document) as never, PARSER_OPTIONS)) as unknown as JsonObject;
  } catch (error) {
    if (error instanceof MissingPointerError) {
      const pointer = /"([^"]+)"/.exec(error.message)?.[1];
      const where = pointer === undefined ? undefined : refs.get(pointer);
      throw new OpenApiError(
        `$ref ${pointer === undefined ? '' : `${JSON.stringify(pointer)} `}points to nothing in the document`,
        where,
      );
    }
    throw new OpenApiError(`the OpenAPI document's references cannot be resolved: ${(error as Error).message}`);
  }
}

/**
 * Parses, checks and dereferences an inline OpenAPI 3.0/3.1 document. Every failure is an
 * OpenApiError naming the problem and, where the parser lets us, the place in the document; a
 * document past one of `limits` (openapi-limits.ts) is refused before it is dereferenced, with an
 * OpenApiLimitError naming the limit. Parsing a large document takes long: the server runs this
 * in a worker thread (openapi-pool.ts).
 */
export async function parseOpenApiDocument(
  text: string,
  limits: OpenApiLimits = DEFAULT_OPENAPI_LIMITS,
): Promise<OpenApiDocument> {
  checkDocumentSize(text, limits);
  const parsed = parseText(text);
  if (!isObject(parsed)) {
    throw new OpenApiError(
      'the text must be an OpenAPI document: a JSON or YAML object at the top level, with openapi, info and paths',
    );
  }
  const version = checkVersion(parsed);
  // First: it bounds the depth every later walk of the document recurses to.
  measureExpansion(parsed, limits);
  const refs = new Map<string, string>();
  collectRefs(parsed, [], refs);
  const raw = await dereferenced(parsed, refs);

  let result;
  try {
    result = await validate(structuredClone(raw) as never, PARSER_OPTIONS);
  } catch (error) {
    throw new OpenApiError(`the OpenAPI document cannot be validated: ${(error as Error).message}`);
  }
  if (!result.valid) {
    throw new OpenApiError(
      `invalid OpenAPI document: ${describeValidationErrors(result.errors, raw, result.additionalErrors)}`,
    );
  }

  const info = isObject(raw.info) ? raw.info : {};
  return {
    openapi: String(raw.openapi),
    version,
    title: typeof info.title === 'string' ? info.title : '',
    servers: (Array.isArray(raw.servers) ? raw.servers : []) as unknown as OpenApiServer[],
    paths: (isObject(raw.paths) ? raw.paths : {}) as unknown as Record<string, OpenApiPathItem>,
    raw,
  };
}
