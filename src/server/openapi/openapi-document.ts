import type { Capability } from '../../domain/access.ts';
import { leastRoleFor } from '../../domain/access.ts';
import type { ApiBody, ApiOperation, ApiResponse } from '../../faces/kit/api-operation.ts';
import { SchemaComponents, type JsonSchemaObject } from './schema-components.ts';

export interface ApiTag {
  name: string;
  description: string;
  externalDocs?: { url: string; description?: string };
}

export interface OpenApiDocumentOptions {
  title: string;
  version: string;
  description: string;
  tags: readonly ApiTag[];
  operations: readonly ApiOperation[];
  /** What a key needs for a route (src/server/route-access.ts), written into each operation's description. */
  capabilityOf: (method: string, route: string) => Capability | undefined;
  /** Routes answered without a key (the server's public paths). */
  isPublic: (route: string) => boolean;
}

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to retry: a retry with the same key and body replays the stored answer instead of running ' +
    'again; the same key with another body is a 409.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/** `/v1/threads/:id` → `/v1/threads/{id}`; a wildcard `*` is a parameter named `path`. */
export function openApiPathOf(route: string): string {
  return route
    .split('/')
    .map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment === '*' ? '{path}' : segment))
    .join('/');
}

/** The OpenAPI 3.1 document of Baton's HTTP API, built from the operations the faces list. */
export function buildOpenApiDocument(options: OpenApiDocumentOptions): JsonSchemaObject {
  const components = new SchemaComponents();
  const paths: Record<string, Record<string, unknown>> = {};
  const errorFormats = new Set<string>();
  const ownSchemes: Record<string, Readonly<Record<string, string>>> = {};
  const operationIds = new Set<string>();
  for (const operation of options.operations) {
    if (operationIds.has(operation.operationId))
      throw new Error(`Two operations have the operationId '${operation.operationId}'.`);
    operationIds.add(operation.operationId);
    if (!options.tags.some((tag) => tag.name === operation.tag))
      throw new Error(
        `Operation '${operation.operationId}' is in tag '${operation.tag}', which api-tags.ts does not list.`,
      );
    const path = operation.path ?? openApiPathOf(operation.route);
    const entry = (paths[path] ??= {});
    const method = operation.method.toLowerCase();
    if (entry[method]) throw new Error(`Two operations document ${operation.method} ${path}.`);
    if (!errorFormats.has(operation.errors.name)) {
      components.add(operation.errors.name, components.toJsonSchema(operation.errors.schema, operation.errors.name));
      errorFormats.add(operation.errors.name);
    }
    if (operation.ownSecurity) ownSchemes[operation.ownSecurity.name] = operation.ownSecurity.scheme;
    entry[method] = operationObject(operation, path, components, options);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: options.title,
      version: options.version,
      description: options.description,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    // No `servers`: the paths are relative to wherever this document was fetched from.
    security: [{ bearerKey: [] }, { apiKeyHeader: [] }],
    tags: options.tags.map((tag) => ({ ...tag })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: {
        bearerKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key: `Authorization: Bearer bk_…`.',
        },
        apiKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'The same key as `x-api-key: bk_…`.',
        },
        ...ownSchemes,
      },
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY },
      schemas: components.all(),
    },
  };
}

function operationObject(
  operation: ApiOperation,
  path: string,
  components: SchemaComponents,
  options: OpenApiDocumentOptions,
): JsonSchemaObject {
  const place = capitalised(operation.operationId);
  const isPublic = options.isPublic(operation.route);
  const parameters: JsonSchemaObject[] = [];
  for (const match of path.matchAll(/\{([^}]+)\}/g)) {
    const name = match[1] ?? '';
    const description = operation.pathParams?.[name];
    parameters.push({
      name,
      in: 'path',
      required: true,
      ...(description ? { description } : {}),
      schema: { type: 'string' },
    });
  }
  if (operation.query) {
    const query = components.toJsonSchema(operation.query, `${place}Query`);
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchemaObject>)) {
      const { description, ...rest } = schema;
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  }
  if (operation.method === 'POST' && !isPublic) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });

  const responses: JsonSchemaObject = {};
  for (const [status, response] of Object.entries(operation.responses))
    responses[status] = responseObject(response, components, `${place}${status}`);
  const errorBody = { content: { 'application/json': { schema: components.ref(operation.errors.name) } } };
  responses['4XX'] = { description: `The request was refused. ${operation.errors.description}`, ...errorBody };
  responses['5XX'] = {
    description: 'Failed on the server or upstream (a model provider), in the same format.',
    ...errorBody,
  };

  const capability = options.capabilityOf(operation.method, operation.route);
  const access = isPublic
    ? 'Public: no API key.'
    : capability
      ? `Needs a key with role \`${leastRoleFor(capability)}\` or above (capability \`${capability}\`).`
      : undefined;
  const description = [operation.description, access].filter(Boolean).join('\n\n');

  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(description ? { description } : {}),
    tags: [operation.tag],
    ...(isPublic ? { security: [] } : {}),
    ...(operation.ownSecurity ? { security: [{ [operation.ownSecurity.name]: [] }] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: operation.body.optional !== true,
            ...(operation.body.description ? { description: operation.body.description } : {}),
            content: {
              'application/json': {
                schema: bodySchema(operation.body, components, `${place}Body`),
              },
            },
          },
        }
      : {}),
    responses,
    ...(operation.externalDocs ? { externalDocs: operation.externalDocs } : {}),
  };
}

function bodySchema(body: ApiBody, components: SchemaComponents, place: string): JsonSchemaObject {
  return body.schema ? components.toJsonSchema(body.schema, place) : { type: 'object' };
}

function responseObject(response: ApiResponse, components: SchemaComponents, place: string): JsonSchemaObject {
  const content: Record<string, unknown> = {};
  content[response.mediaType ?? 'application/json'] = response.schema
    ? { schema: bodySchema(response, components, place) }
    : {};
  if (response.eventStream)
    content['text/event-stream'] = { schema: { type: 'string', description: response.eventStream } };
  return { description: response.description, content };
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
