import { BatonError } from '../../domain/errors/baton-error.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Principal } from '../../domain/principal.ts';
import type { JsonObject } from '../../domain/records.ts';
import { isJsonObject, type Resources } from '../../resources/index.ts';
import { acceptProtoFieldNames, jsonNameOf, type FieldNameOptions } from './proto-field-names.ts';

/**
 * REST routes of the CES management API. Each route only turns path, query and body into the CES
 * request message, with proto field names (`display_name`) in their JSON names, and calls the
 * service, which owns every rule (the MCP tools call the same).
 */

type Params = Record<string, string>;
export type QueryKind = 'string' | 'number' | 'boolean';

/**
 * Reads the query parameters a method takes, by JSON or proto name (`toolsetId`, `toolset_id`);
 * any other is INVALID_ARGUMENT. Keys stay as written: the request message is converted to JSON
 * names as a whole. Numbers and booleans arrive as text and are converted when they parse;
 * otherwise the text is passed on so the request schema names the field.
 */
function readQuery(query: unknown, allowed: Record<string, QueryKind>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(isJsonObject(query) ? query : {})) {
    const name = Object.hasOwn(allowed, key) ? key : jsonNameOf(key);
    const kind = Object.hasOwn(allowed, name) ? allowed[name] : undefined;
    if (kind === undefined) {
      const known = Object.keys(allowed);
      throw new BatonError(
        'unknown_query_parameter',
        `Unknown query parameter '${key}'. ${known.length > 0 ? `This method takes: ${known.join(', ')}.` : 'This method takes none.'}`,
        {
          param: key,
        },
      );
    }
    if (typeof value !== 'string')
      throw new BatonError('repeated_query_parameter', `Query parameter '${key}' was given more than once.`, {
        param: key,
      });
    if (kind === 'number' && /^\s*-?\d+\s*$/.test(value)) result[key] = Number(value);
    else if (kind === 'boolean' && (value === 'true' || value === 'false')) result[key] = value === 'true';
    else result[key] = value;
  }
  return result;
}

function objectBody(body: unknown, what: string): JsonObject {
  if (!isJsonObject(body))
    throw new BatonError('invalid_body', `The request body must be a JSON object: the ${what} resource.`);
  return body;
}

export const LIST_QUERY: Record<string, QueryKind> = {
  pageSize: 'number',
  pageToken: 'string',
  filter: 'string',
  orderBy: 'string',
};
export const MASK_QUERY: Record<string, QueryKind> = { updateMask: 'string' };
export const APP_DELETE_QUERY: Record<string, QueryKind> = { etag: 'string' };

type Method = 'create' | 'get' | 'list' | 'update' | 'delete';

/** The five methods every resource family has, each `(principal, request message) → response`, and their request schemas. */
export type ResourceMethods = Record<Method, (principal: Principal, request: unknown) => Promise<unknown>> & {
  requests: Record<Method, z.ZodType>;
};

/**
 * Calls `method` with `message` in JSON names; its errors name fields as the client spelled them.
 * `resourceField` is the resource an Update request's `updateMask` names fields of.
 */
async function callWith(
  schema: z.ZodType,
  message: Record<string, unknown>,
  method: (message: unknown) => Promise<unknown>,
  resourceField?: string,
): Promise<unknown> {
  const options: FieldNameOptions = resourceField ? { fieldMasks: { updateMask: resourceField } } : {};
  const accepted = acceptProtoFieldNames(schema, message, options);
  try {
    return await method(accepted.message);
  } catch (error) {
    throw accepted.inClientSpelling(error);
  }
}

/** Calls one of a family's methods through `callWith`, with that method's request schema. */
function invoke(
  service: ResourceMethods,
  method: Method,
  principal: Principal,
  message: Record<string, unknown>,
  resourceField?: string,
): Promise<unknown> {
  return callWith(service.requests[method], message, (request) => service[method](principal, request), resourceField);
}

export interface Collection {
  /** URL of the collection, with `:params`, and the parent resource name built from the params. */
  path: string;
  parent: (params: Params) => string;
  /** The request field holding the resource (`toolset`) and the create id parameter (`toolsetId`). */
  field: string;
  idParam: string;
  deleteQuery: Record<string, QueryKind>;
  service: ResourceMethods;
}

function registerCollection(app: FastifyInstance, collection: Collection): void {
  const { path, parent, field, idParam, service } = collection;
  const itemName = (params: Params) => `${parent(params)}/${path.split('/').at(-1)}/${params.id}`;
  const params = (request: FastifyRequest) => request.params as Params;

  app.get(path, async (request) =>
    invoke(service, 'list', request.principal, {
      parent: parent(params(request)),
      ...readQuery(request.query, LIST_QUERY),
    }),
  );
  app.post(path, async (request) =>
    invoke(service, 'create', request.principal, {
      parent: parent(params(request)),
      ...readQuery(request.query, { [idParam]: 'string' }),
      [field]: objectBody(request.body, field),
    }),
  );
  app.get(`${path}/:id`, async (request) =>
    invoke(service, 'get', request.principal, { name: itemName(params(request)) }),
  );
  // The path names the resource; a `name` in the body cannot retarget the update.
  app.patch(`${path}/:id`, async (request) =>
    invoke(
      service,
      'update',
      request.principal,
      {
        [field]: { ...objectBody(request.body, field), name: itemName(params(request)) },
        ...readQuery(request.query, MASK_QUERY),
      },
      field,
    ),
  );
  app.delete(`${path}/:id`, async (request) =>
    invoke(service, 'delete', request.principal, {
      name: itemName(params(request)),
      ...readQuery(request.query, collection.deleteQuery),
    }),
  );
}

/** Where the CES apps live: children of a location; their item parameter is `:app` so app routes nest below it. */
export const CES_APPS_ROUTE = '/v1/projects/:project/locations/:location/apps';

const appName = (params: Params) => `projects/${params.project}/locations/${params.location}/apps/${params.app}`;

/** The collections under an app, each with its five methods (the API document lists the same). */
export function appCollections(services: Resources): Collection[] {
  const referencedDelete: Record<string, QueryKind> = { force: 'boolean', etag: 'string' };
  const path = (collection: string) => `${CES_APPS_ROUTE}/:app/${collection}`;
  return [
    {
      path: path('agents'),
      parent: appName,
      field: 'agent',
      idParam: 'agentId',
      deleteQuery: referencedDelete,
      service: services.agents,
    },
    {
      path: path('tools'),
      parent: appName,
      field: 'tool',
      idParam: 'toolId',
      deleteQuery: referencedDelete,
      service: services.tools,
    },
    {
      path: path('toolsets'),
      parent: appName,
      field: 'toolset',
      idParam: 'toolsetId',
      deleteQuery: referencedDelete,
      service: services.toolsets,
    },
    {
      path: path('secrets'),
      parent: appName,
      field: 'secret',
      idParam: 'secretId',
      deleteQuery: { etag: 'string' },
      service: services.secrets,
    },
  ];
}

/**
 * `/v1/projects/{p}/locations/{l}/apps[/{app}[/agents|tools|toolsets|secrets[/{id}]]]`. Errors
 * under `/v1/projects/` (auth, bad JSON, unknown routes, 413/415 too) are google.rpc.Status bodies.
 */
export function registerCesResourceRoutes(app: FastifyInstance, services: Resources): void {
  const location = (params: Params) => `projects/${params.project}/locations/${params.location}`;
  const apps = CES_APPS_ROUTE;

  app.get(apps, async (request) =>
    invoke(services.apps, 'list', request.principal, {
      parent: location(request.params as Params),
      ...readQuery(request.query, LIST_QUERY),
    }),
  );
  app.post(apps, async (request) =>
    invoke(services.apps, 'create', request.principal, {
      parent: location(request.params as Params),
      ...readQuery(request.query, { appId: 'string' }),
      app: objectBody(request.body, 'app'),
    }),
  );
  app.get(`${apps}/:app`, async (request) =>
    invoke(services.apps, 'get', request.principal, { name: appName(request.params as Params) }),
  );
  app.patch(`${apps}/:app`, async (request) =>
    invoke(
      services.apps,
      'update',
      request.principal,
      {
        app: { ...objectBody(request.body, 'app'), name: appName(request.params as Params) },
        ...readQuery(request.query, MASK_QUERY),
      },
      'app',
    ),
  );
  app.delete(`${apps}/:app`, async (request) =>
    invoke(services.apps, 'delete', request.principal, {
      name: appName(request.params as Params),
      ...readQuery(request.query, APP_DELETE_QUERY),
    }),
  );

  for (const collection of appCollections(services)) registerCollection(app, collection);

  // Custom method `toolsets/{toolset}:retrieveTools` (ToolService.RetrieveTools); the body may be empty.
  app.post(`${apps}/:app/toolsets/:toolsetAction`, async (request) => {
    const { toolsetAction, ...params } = request.params as Params;
    const match = /^(.+):retrieveTools$/.exec(toolsetAction ?? '');
    if (!match)
      throw new BatonError('method_not_found', `No method '${toolsetAction}': call toolsets/{toolset}:retrieveTools.`);
    readQuery(request.query, {});
    const body =
      request.body === undefined || request.body === null ? {} : objectBody(request.body, 'RetrieveToolsRequest');
    return callWith(
      services.toolsets.retrieveToolsRequest,
      { ...body, toolset: `${appName(params)}/toolsets/${match[1]}` },
      (message) => services.toolsets.retrieveTools(request.principal, message),
    );
  });
}
