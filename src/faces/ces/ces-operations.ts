import { z } from 'zod';
import { conversationExportSchema } from '../kit/conversation-export-view.ts';
import type { Resources } from '../../resources/index.ts';
import type { ApiOperation } from '../kit/api-operation.ts';
import {
  APP_DELETE_QUERY,
  appCollections,
  CES_APPS_ROUTE,
  LIST_QUERY,
  MASK_QUERY,
  type QueryKind,
  type ResourceMethods,
} from './ces-resource-routes.ts';
import { GOOGLE_RPC_ERRORS } from './google-status-schema.ts';
import { conversationListQuery } from './sessions/session-routes.ts';
import { conversationSchema, runSessionResponseSchema } from './sessions/session-view-schemas.ts';
import { runSessionRequestSchema } from './sessions/session-wire.ts';

const errors = GOOGLE_RPC_ERRORS;
const PROTO_NAMES = 'Fields may be written with their proto names too (`display_name` for `displayName`).';
const appParams = {
  project: 'The project id (`default` unless the app was created under another).',
  location: 'The location id (`global` unless the app was created under another).',
  app: 'The app id.',
};

/** The request message of a method, as an object whose fields the route fills from path, query and body. */
function messageOf(service: ResourceMethods, method: keyof ResourceMethods['requests']): z.ZodObject {
  const schema = service.requests[method];
  if (!(schema instanceof z.ZodObject)) throw new Error(`The ${method} request message is not an object schema.`);
  return schema;
}

/** The fields of `message` the route reads from the query string (the same table the route checks with). */
function queryOf(message: z.ZodObject, allowed: Record<string, QueryKind>): z.ZodObject {
  const mask = Object.fromEntries(Object.keys(allowed).map((key) => [key, true]));
  return message.pick(mask as Parameters<typeof message.pick>[0]);
}

/** A field of the request message: the resource a create or update takes as its body. */
function fieldOf(message: z.ZodObject, field: string): z.ZodType {
  const schema = message.shape[field];
  if (!schema) throw new Error(`The request message has no field '${field}'.`);
  return schema as z.ZodType;
}

interface Family {
  tag: string;
  /** Singular and plural, as in operation ids: `Tool`, `Tools`. */
  one: string;
  many: string;
  field: string;
  collectionRoute: string;
  itemRoute: string;
  idParam: string;
  deleteQuery: Record<string, QueryKind>;
  service: ResourceMethods;
  pathParams: Record<string, string>;
  /** Apps are created and deleted as long-running operations, which Baton returns already done. */
  longRunning: boolean;
}

function familyOperations(family: Family): ApiOperation[] {
  const { service, field, one, many, tag, pathParams } = family;
  // One message for what is sent and what comes back: output-only fields are ignored on input.
  // Named, so the document shows the message once (a copy of the schema: the original stays unnamed).
  const resource = { schema: fieldOf(messageOf(service, 'create'), field).meta({ id: `ces.${one}` }) };
  const operation = z.object({
    name: z.string(),
    done: z.literal(true),
    response: z.looseObject({ '@type': z.string() }),
  });
  const itemParams = { ...pathParams, ...(family.itemRoute.endsWith(':id') ? { id: `The ${field} id.` } : {}) };
  return [
    {
      method: 'GET',
      route: family.collectionRoute,
      operationId: `listCes${many}`,
      summary: `List ${many.toLowerCase()}`,
      description: 'Paged (`pageSize`, `pageToken`), filtered (AIP-160) and ordered.',
      tag,
      pathParams,
      query: queryOf(messageOf(service, 'list'), LIST_QUERY),
      responses: {
        200: {
          description: `A page of ${many.toLowerCase()}; \`nextPageToken\` is absent on the last page.`,
          schema: z.object({
            [`${field}s`]: z.array(resource.schema).optional(),
            nextPageToken: z.string().optional(),
          }),
        },
      },
      errors,
    },
    {
      method: 'POST',
      route: family.collectionRoute,
      operationId: `createCes${one}`,
      summary: `Create ${/^[AEIOU]/.test(one) ? 'an' : 'a'} ${one.toLowerCase()}`,
      description: PROTO_NAMES,
      tag,
      pathParams,
      query: queryOf(messageOf(service, 'create'), { [family.idParam]: 'string' }),
      body: resource,
      responses: family.longRunning
        ? { 200: { description: 'A done operation whose `response` is the app.', schema: operation } }
        : { 200: { description: `The ${one.toLowerCase()}.`, ...resource } },
      errors,
    },
    {
      method: 'GET',
      route: family.itemRoute,
      operationId: `getCes${one}`,
      summary: `Get ${/^[AEIOU]/.test(one) ? 'an' : 'a'} ${one.toLowerCase()}`,
      tag,
      pathParams: itemParams,
      responses: { 200: { description: `The ${one.toLowerCase()}.`, ...resource } },
      errors,
    },
    {
      method: 'PATCH',
      route: family.itemRoute,
      operationId: `updateCes${one}`,
      summary: `Update ${/^[AEIOU]/.test(one) ? 'an' : 'a'} ${one.toLowerCase()}`,
      description:
        'Changes the fields `updateMask` names (all of them when it is absent or `*`). A stale `etag` in the body ' +
        `is ABORTED. ${PROTO_NAMES}`,
      tag,
      pathParams: itemParams,
      query: queryOf(messageOf(service, 'update'), MASK_QUERY),
      // The update's resource field is the same message (described for the update).
      body: resource,
      responses: { 200: { description: `The updated ${one.toLowerCase()}.`, ...resource } },
      errors,
    },
    {
      method: 'DELETE',
      route: family.itemRoute,
      operationId: `deleteCes${one}`,
      summary: `Delete ${/^[AEIOU]/.test(one) ? 'an' : 'a'} ${one.toLowerCase()}`,
      tag,
      pathParams: itemParams,
      query: queryOf(messageOf(service, 'delete'), family.deleteQuery),
      responses: family.longRunning
        ? { 200: { description: 'A done operation (google.protobuf.Empty).', schema: operation } }
        : { 200: { description: 'Deleted (an empty object).', schema: z.object({}) } },
      errors,
    },
  ];
}

/**
 * The CES face's routes (ces-resource-routes.ts, sessions/session-routes.ts), for the API document.
 * The resource schemas are the services' request messages, which follow the server's tool kinds.
 */
export function cesOperations(services: Resources): ApiOperation[] {
  const families: Family[] = [
    {
      tag: 'CES apps',
      one: 'App',
      many: 'Apps',
      field: 'app',
      collectionRoute: CES_APPS_ROUTE,
      itemRoute: `${CES_APPS_ROUTE}/:app`,
      idParam: 'appId',
      deleteQuery: APP_DELETE_QUERY,
      service: services.apps,
      pathParams: { project: appParams.project, location: appParams.location },
      longRunning: true,
    },
  ];
  for (const collection of appCollections(services)) {
    const one = collection.field.charAt(0).toUpperCase() + collection.field.slice(1);
    families.push({
      tag: `CES ${collection.field}s`,
      one,
      many: `${one}s`,
      field: collection.field,
      collectionRoute: collection.path,
      itemRoute: `${collection.path}/:id`,
      idParam: collection.idParam,
      deleteQuery: collection.deleteQuery,
      service: collection.service,
      pathParams: appParams,
      longRunning: false,
    });
  }
  const appRoute = `${CES_APPS_ROUTE}/:app`;
  const appPath = '/v1/projects/{project}/locations/{location}/apps/{app}';
  const retrieveTools = services.toolsets.retrieveToolsRequest;
  return [
    ...families.flatMap(familyOperations),
    {
      method: 'POST',
      route: `${appRoute}/toolsets/:toolsetAction`,
      path: `${appPath}/toolsets/{toolset}:retrieveTools`,
      operationId: 'retrieveToolsetTools',
      summary: "List a toolset's tools",
      description: 'Reads the tools from their source (the OpenAPI document, the MCP server). The body may be empty.',
      tag: 'CES toolsets',
      pathParams: { ...appParams, toolset: 'The toolset id.' },
      body: {
        schema: retrieveTools instanceof z.ZodObject ? retrieveTools.omit({ toolset: true }) : retrieveTools,
        optional: true,
      },
      responses: {
        200: {
          description: 'The tools.',
          schema: z.looseObject({ tools: z.array(z.record(z.string(), z.unknown())) }),
        },
      },
      errors,
    },
    ...(['runSession', 'streamRunSession'] as const).map((method): ApiOperation => ({
      method: 'POST',
      route: `${appRoute}/sessions/:sessionAction`,
      path: `${appPath}/sessions/{session}:${method}`,
      operationId: method,
      summary: method === 'runSession' ? 'Run a session turn' : 'Run a session turn, streamed',
      description:
        'Sends inputs (text, files, or `toolResponses` answering the client functions of the last turn) to the ' +
        "app's root agent (or `config.entryAgent`); a new session id starts a session. " +
        (method === 'streamRunSession'
          ? 'Each SSE `data` frame is a RunSessionResponse with one output; an error after the first frame ends the stream with a google.rpc.Status frame.'
          : 'Answers once the turn completes or pauses for client functions.') +
        ` ${PROTO_NAMES}`,
      tag: 'CES sessions',
      pathParams: { ...appParams, session: 'The session id: any id of yours, or one a previous run returned.' },
      body: { schema: runSessionRequestSchema.meta({ id: 'RunSessionRequest' }) },
      responses: {
        200:
          method === 'runSession'
            ? { description: "The turn's outputs.", schema: runSessionResponseSchema }
            : {
                description: 'One RunSessionResponse per output, as Server-Sent Events.',
                mediaType: 'text/event-stream',
                schema: z.string(),
              },
      },
      errors,
    })),
    {
      method: 'GET',
      route: `${appRoute}/conversations`,
      operationId: 'listConversations',
      summary: 'List conversations',
      description: "The app's sessions as CES Conversations, without their turns.",
      tag: 'CES sessions',
      pathParams: appParams,
      query: conversationListQuery,
      responses: {
        200: {
          description: 'A page of conversations.',
          schema: z.object({ conversations: z.array(conversationSchema), nextPageToken: z.string().optional() }),
        },
      },
      errors,
    },
    {
      method: 'GET',
      route: `${appRoute}/conversations/:conversation`,
      operationId: 'getConversation',
      summary: 'Get a conversation',
      description: 'With its turns: messages whose chunks hold texts, tool calls and tool responses.',
      tag: 'CES sessions',
      pathParams: { ...appParams, conversation: 'The conversation (session) id.' },
      responses: { 200: { description: 'The conversation.', schema: conversationSchema } },
      errors,
    },
    {
      method: 'GET',
      route: `${appRoute}/conversations/:conversation`,
      path: `${appPath}/conversations/{conversation}:export`,
      operationId: 'exportConversation',
      summary: 'Export a conversation',
      description:
        'The whole conversation as `baton.conversation-export/v1` (docs/conversation-export.md): messages, tool calls ' +
        'with arguments and results, decisions with who and when, turns. Recorded in the audit trail.',
      tag: 'CES sessions',
      pathParams: { ...appParams, conversation: 'The conversation (session) id.' },
      responses: { 200: { description: 'The export.', schema: conversationExportSchema } },
      errors,
    },
    {
      method: 'DELETE',
      route: `${appRoute}/conversations/:conversation`,
      operationId: 'deleteConversation',
      summary: 'Delete a conversation',
      description:
        'Deletes the session and every row of its conversation; a paused turn is closed and its calls cancelled first, ' +
        'a running turn is refused (409 ABORTED, naming the turn).',
      tag: 'CES sessions',
      pathParams: { ...appParams, conversation: 'The conversation (session) id.' },
      responses: { 200: { description: 'Deleted (an empty object).', schema: z.object({}) } },
      errors,
    },
  ];
}
