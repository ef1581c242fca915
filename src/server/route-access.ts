import type { Capability } from '../domain/access.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const CES_APP = '/v1/projects/:project/locations/:location/apps/:app';

/** Reading is for every role; writing changes what the app is made of, so it is an app admin's. */
const APP_COLLECTION: Partial<Record<Method, Capability>> = { GET: 'read', POST: 'manage' };
const APP_RESOURCE: Partial<Record<Method, Capability>> = { GET: 'read', PATCH: 'manage', DELETE: 'manage' };

/**
 * What each API route needs of the caller's key (src/domain/access.ts), by route pattern and
 * method; HEAD follows GET. The server refuses to start with a route missing here, so a new route
 * cannot ship open by accident. `/mcp` is a single route for many tools: every key may reach it,
 * and each management tool declares its own capability (faces/mcp/management-tools.ts).
 */
export const ROUTE_ACCESS: Readonly<Record<string, Partial<Record<Method, Capability>>>> = {
  // Baton's admin API: apps are an operator's, keys an app admin's (their service checks how far).
  '/v1/apps': { POST: 'operate' },
  '/v1/me': { GET: 'read' },
  '/v1/api-keys': { GET: 'manage', POST: 'manage' },
  '/v1/api-keys/:id': { DELETE: 'manage' },
  '/v1/api-keys/:id/rotate': { POST: 'manage' },
  // Webhook endpoints (issue 20): what the app is told, and where, is an app admin's.
  '/v1/webhook-endpoints': { GET: 'manage', POST: 'manage' },
  '/v1/webhook-endpoints/:id': { GET: 'manage', PATCH: 'manage', DELETE: 'manage' },
  '/v1/webhook-endpoints/:id/rotate-secret': { POST: 'manage' },
  '/v1/webhook-endpoints/:id/deliveries': { GET: 'manage' },
  '/v1/webhook-endpoints/:id/deliveries/:delivery/resend': { POST: 'manage' },
  // Data lifecycle (docs/conversation-export.md): a whole app's data and its audit trail are an app admin's;
  // an operator also lists any app's trail with ?app_id=, a deleted app's included (engine/lifecycle/audit-trail.ts).
  '/v1/exports/conversations': { GET: 'manage' },
  '/v1/audit-events': { GET: 'manage' },
  // Native agents.
  '/v1/agents': { GET: 'read', POST: 'manage' },
  '/v1/agents/:name': { GET: 'read', PUT: 'manage', DELETE: 'manage' },
  // Threads: talking to agents is a member's.
  '/v1/threads': { GET: 'read', POST: 'use' },
  '/v1/threads/:id': { GET: 'read', DELETE: 'use' },
  '/v1/threads/:id/export': { GET: 'read' },
  '/v1/threads/:id/messages': { GET: 'read', POST: 'use' },
  '/v1/threads/:id/cancel': { POST: 'use' },
  // The ledger: answering a call or an approval is a member's.
  '/v1/tool-calls': { GET: 'read' },
  '/v1/tool-calls/events': { GET: 'read' },
  '/v1/tool-calls/:id': { GET: 'read' },
  '/v1/tool-calls/:id/tool': { GET: 'read' },
  '/v1/tool-calls/:id/result': { POST: 'use' },
  '/v1/tool-calls/:id/decision': { POST: 'use' },
  // Tool workers (docs/tool-workers.md): claiming and answering is a member's.
  '/v1/tool-calls/claim': { POST: 'use' },
  '/v1/tool-calls/:id/lease': { POST: 'use' },
  '/v1/tool-calls/:id/release': { POST: 'use' },
  // Responses.
  '/v1/responses': { POST: 'use' },
  '/v1/responses/compact': { POST: 'use' },
  '/v1/responses/:id': { GET: 'read', DELETE: 'use' },
  '/v1/responses/:id/cancel': { POST: 'use' },
  '/v1/responses/:id/input_items': { GET: 'read' },
  '/v1/responses/:id/export': { GET: 'read' },
  // The same Responses routes in the Nodexa dialect (src/faces/responses/response-dialect.ts).
  '/nodexa/v1/responses': { POST: 'use' },
  '/nodexa/v1/responses/compact': { POST: 'use' },
  '/nodexa/v1/responses/:id': { GET: 'read', DELETE: 'use' },
  '/nodexa/v1/responses/:id/cancel': { POST: 'use' },
  '/nodexa/v1/responses/:id/input_items': { GET: 'read' },
  '/nodexa/v1/responses/:id/export': { GET: 'read' },
  // Chat Completions, and the models a chat client may name.
  '/v1/chat/completions': { POST: 'use' },
  '/v1/models': { GET: 'read' },
  '/v1/models/*': { GET: 'read' },
  // CES resources: apps are created and deleted by operators, changed by their admins.
  '/v1/projects/:project/locations/:location/apps': { GET: 'read', POST: 'operate' },
  [CES_APP]: { GET: 'read', PATCH: 'manage', DELETE: 'operate' },
  [`${CES_APP}/agents`]: APP_COLLECTION,
  [`${CES_APP}/agents/:id`]: APP_RESOURCE,
  [`${CES_APP}/tools`]: APP_COLLECTION,
  [`${CES_APP}/tools/:id`]: APP_RESOURCE,
  [`${CES_APP}/toolsets`]: APP_COLLECTION,
  [`${CES_APP}/toolsets/:id`]: APP_RESOURCE,
  // `toolsets/{id}:retrieveTools` is a POST that only reads what the toolset offers.
  [`${CES_APP}/toolsets/:toolsetAction`]: { POST: 'read' },
  [`${CES_APP}/secrets`]: APP_COLLECTION,
  [`${CES_APP}/secrets/:id`]: APP_RESOURCE,
  // CES sessions and their conversations: a member's, like Threads.
  [`${CES_APP}/sessions/:sessionAction`]: { POST: 'use' },
  [`${CES_APP}/conversations`]: { GET: 'read' },
  [`${CES_APP}/conversations/:conversation`]: { GET: 'read', DELETE: 'use' },
  '/mcp': { GET: 'read', POST: 'read', DELETE: 'read', PUT: 'read', PATCH: 'read' },
};

/**
 * Routes that check their caller themselves, with a secret of their own instead of an API key:
 * `/metrics` takes the metrics token (`metrics.token`), since its figures cover every app and a
 * key belongs to one. The server skips API-key authentication for these patterns only.
 */
export const OWN_ACCESS_ROUTES: ReadonlySet<string> = new Set(['/metrics']);

/** The capability `method` on the route pattern `url` needs, or undefined when the route has no rule. */
export function routeCapability(method: string, url: string): Capability | undefined {
  const rules = ROUTE_ACCESS[url];
  if (!rules) return undefined;
  const normalised = (method === 'HEAD' ? 'GET' : method) as Method;
  return rules[normalised];
}

/**
 * The routes a worker key (one minted with a tool scope) may reach: claiming, renewing, releasing,
 * reading and answering calls, and `/v1/me`. Whether each call is of one of its tools is checked
 * where the call is read (engine/workers). Everything else answers 403 `key_out_of_scope`.
 */
export const WORKER_KEY_ROUTES: ReadonlySet<string> = new Set([
  '/v1/me',
  '/v1/tool-calls/claim',
  '/v1/tool-calls/:id',
  '/v1/tool-calls/:id/tool',
  '/v1/tool-calls/:id/lease',
  '/v1/tool-calls/:id/release',
  '/v1/tool-calls/:id/result',
]);
