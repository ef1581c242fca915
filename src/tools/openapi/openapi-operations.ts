/**
 * One tool per OpenAPI operation. Each tool has a name a model provider accepts, a description
 * from the operation, and ONE JSON Schema object for its arguments: path, query, header and
 * cookie parameters by name, plus `body` for the request body. The bindings kept beside the
 * schema say where each argument goes when the request is built.
 *
 * Argument names: a parameter's name, with characters providers refuse in property names
 * replaced by `_`. When two parameters in different locations end up with the same name (an `id`
 * in the path and an `id` in the query), or a parameter is called `body` while the operation has
 * a request body, each of the clashing ones is prefixed with its location: `path_id`, `query_id`.
 */
import { OpenApiError, joinWhere } from './openapi-error.ts';
import { toJsonSchema } from './openapi-json-schema.ts';
import {
  HTTP_METHODS,
  type HttpMethod,
  type JsonObject,
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiResponse,
  type ParameterLocation,
} from './openapi-types.ts';

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export interface ParameterBinding {
  /** The property name in the tool's arguments. */
  argName: string;
  /** The name on the wire. */
  name: string;
  in: ParameterLocation;
  required: boolean;
  style: string;
  explode: boolean;
  /** Set when the parameter is described by `content`: its value is sent as JSON text. */
  contentType?: string;
}

export interface BodyBinding {
  argName: 'body';
  contentType: 'application/json' | 'application/x-www-form-urlencoded';
  required: boolean;
}

export interface OpenApiOperationTool {
  name: string;
  description: string;
  method: HttpMethod;
  /** The path template, e.g. `/pets/{petId}`. */
  path: string;
  operationId?: string;
  /** The tool's arguments as one JSON Schema object. */
  parameters: JsonObject;
  bindings: ParameterBinding[];
  body?: BodyBinding;
  responses: Record<string, OpenApiResponse>;
  version: '3.0' | '3.1';
}

export interface SkippedOperation {
  method: HttpMethod;
  path: string;
  operationId?: string;
  reason: string;
}

/** Any text → a valid tool name: runs of other characters become `_`, at most 64 characters. */
export function sanitizeToolName(raw: string): string {
  const cleaned = raw
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  return cleaned === '' ? 'operation' : cleaned;
}

/** For operations without an operationId: `get_pets_petId` for GET /pets/{petId}, `get` for GET /. */
function generatedName(method: HttpMethod, path: string): string {
  const rest = path.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return sanitizeToolName(rest === '' ? method : `${method}_${rest}`);
}

function sanitizeArgName(raw: string): string {
  const cleaned = raw.replace(/[^a-zA-Z0-9_.-]/g, '_').slice(0, 64);
  return cleaned === '' ? 'param' : cleaned;
}

// The spec says these header parameters SHALL be ignored: the client sets them itself.
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

function jsonMediaType(content: Record<string, unknown>): string | undefined {
  return Object.keys(content).find((type) => /^application\/([\w.+-]+\+)?json\s*(;.*)?$/i.test(type));
}

/** Path-level parameters apply unless the operation redefines the same name and location. */
function effectiveParameters(shared: OpenApiParameter[] = [], own: OpenApiParameter[] = []): OpenApiParameter[] {
  const key = (parameter: OpenApiParameter): string => `${parameter.in}:${parameter.name}`;
  const ownKeys = new Set(own.map(key));
  return [...shared.filter((parameter) => !ownKeys.has(key(parameter))), ...own].filter(
    (parameter) => !(parameter.in === 'header' && IGNORED_HEADERS.has(parameter.name.toLowerCase())),
  );
}

function describeOperation(method: HttpMethod, path: string, operation: OpenApiOperation): string {
  const text = (operation.description ?? '').trim() || (operation.summary ?? '').trim();
  const hint = `${method.toUpperCase()} ${path}${operation.deprecated === true ? ', deprecated' : ''}`;
  return text === '' ? hint : `${text}\n\n(${hint})`;
}

function assignArgNames(parameters: OpenApiParameter[], hasBody: boolean, where: string): string[] {
  const base = parameters.map((parameter) => sanitizeArgName(parameter.name));
  const counts = new Map<string, number>();
  for (const name of base) counts.set(name, (counts.get(name) ?? 0) + 1);
  const names = base.map((name, index) =>
    (counts.get(name) ?? 0) > 1 || (hasBody && name === 'body')
      ? sanitizeArgName(`${parameters[index]?.in}_${name}`)
      : name,
  );
  const seen = new Map<string, string>();
  names.forEach((name, index) => {
    const parameter = parameters[index];
    const label = `${parameter?.in} parameter '${parameter?.name}'`;
    const earlier = seen.get(name);
    if (earlier !== undefined) throw new OpenApiError(`${earlier} and ${label} both become argument '${name}'`, where);
    seen.set(name, label);
  });
  return names;
}

function buildTool(
  document: OpenApiDocument,
  method: HttpMethod,
  path: string,
  operation: OpenApiOperation,
  shared?: OpenApiParameter[],
): OpenApiOperationTool | SkippedOperation {
  const where = joinWhere(['paths', path, method]);
  const identity = {
    method,
    path,
    ...(operation.operationId === undefined ? {} : { operationId: operation.operationId }),
  };
  let body: BodyBinding | undefined;
  let bodySchema: JsonObject | undefined;
  const requestBody = operation.requestBody;
  if (requestBody !== undefined) {
    const json = jsonMediaType(requestBody.content);
    const form =
      'application/x-www-form-urlencoded' in requestBody.content ? 'application/x-www-form-urlencoded' : undefined;
    const chosen = json ?? form;
    if (chosen === undefined) {
      // An optional body we cannot send is simply left out; a required one makes the operation unusable.
      if (requestBody.required === true) {
        return {
          ...identity,
          reason:
            `request body only as ${Object.keys(requestBody.content).join(', ') || 'no media type'} (supported: ` +
            `application/json, application/x-www-form-urlencoded)`,
        };
      }
    } else {
      body = {
        argName: 'body',
        contentType: json === undefined ? 'application/x-www-form-urlencoded' : 'application/json',
        required: requestBody.required === true,
      };
      bodySchema = toJsonSchema(requestBody.content[chosen]?.schema ?? {}, document.version, 'request');
      if (requestBody.description !== undefined && bodySchema.description === undefined)
        bodySchema.description = requestBody.description;
    }
  }

  const parameters = effectiveParameters(shared, operation.parameters);
  const argNames = assignArgNames(parameters, body !== undefined, where);
  const properties: JsonObject = {};
  const required: string[] = [];
  const bindings: ParameterBinding[] = parameters.map((parameter, index) => {
    const argName = argNames[index] ?? parameter.name;
    const contentType = parameter.content === undefined ? undefined : Object.keys(parameter.content)[0];
    const rawSchema =
      parameter.schema ?? (contentType === undefined ? undefined : parameter.content?.[contentType]?.schema);
    const schema = toJsonSchema(rawSchema ?? {}, document.version, 'request');
    if (parameter.description !== undefined) schema.description = parameter.description;
    if (parameter.deprecated === true) schema.deprecated = true;
    properties[argName] = schema;
    const isRequired = parameter.in === 'path' || parameter.required === true;
    if (isRequired) required.push(argName);
    const style = parameter.style ?? (parameter.in === 'query' || parameter.in === 'cookie' ? 'form' : 'simple');
    return {
      argName,
      name: parameter.name,
      in: parameter.in,
      required: isRequired,
      style,
      explode: parameter.explode ?? style === 'form',
      ...(contentType === undefined ? {} : { contentType }),
    };
  });
  if (body !== undefined && bodySchema !== undefined) {
    properties.body = bodySchema;
    if (body.required) required.push('body');
  }

  return {
    ...identity,
    name: operation.operationId === undefined ? generatedName(method, path) : sanitizeToolName(operation.operationId),
    description: describeOperation(method, path, operation),
    parameters: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    bindings,
    ...(body === undefined ? {} : { body }),
    responses: operation.responses ?? {},
    version: document.version,
  };
}

/**
 * The document's operations as tools, in document order, with those that cannot be offered
 * listed beside them. Two operations whose names come out the same are an error: silently
 * renaming one would make `toolIds` and transcripts ambiguous.
 */
export function operationsFromDocument(document: OpenApiDocument): {
  tools: OpenApiOperationTool[];
  skipped: SkippedOperation[];
} {
  const tools: OpenApiOperationTool[] = [];
  const skipped: SkippedOperation[] = [];
  const owners = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const built = buildTool(document, method, path, operation, item.parameters);
      if ('reason' in built) {
        skipped.push(built);
        continue;
      }
      const label = `${method.toUpperCase()} ${path}${operation.operationId === undefined ? '' : ` (operationId '${operation.operationId}')`}`;
      const owner = owners.get(built.name);
      if (owner !== undefined) {
        throw new OpenApiError(
          `operations ${owner} and ${label} both become tool name '${built.name}'`,
          joinWhere(['paths', path, method]),
        );
      }
      owners.set(built.name, label);
      tools.push(built);
    }
  }
  return { tools, skipped };
}

/** The tools named in `toolIds` (by tool name or original operationId); all when none are given. */
export function selectOperations(
  tools: readonly OpenApiOperationTool[],
  toolIds?: readonly string[],
): OpenApiOperationTool[] {
  if (toolIds === undefined || toolIds.length === 0) return [...tools];
  const wanted = new Set(toolIds);
  const known = new Set(
    tools.flatMap((tool) => [tool.name, ...(tool.operationId === undefined ? [] : [tool.operationId])]),
  );
  const unknown = [...wanted].filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new OpenApiError(
      `unknown tool id${unknown.length === 1 ? '' : 's'} ${unknown.map((id) => `'${id}'`).join(', ')}; ` +
        `the toolset has ${tools.map((tool) => `'${tool.name}'`).join(', ') || 'no tools'}`,
      'toolIds',
    );
  }
  return tools.filter(
    (tool) => wanted.has(tool.name) || (tool.operationId !== undefined && wanted.has(tool.operationId)),
  );
}
