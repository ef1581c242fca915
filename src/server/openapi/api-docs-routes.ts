import { readFileSync } from 'node:fs';
import apiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Capability } from '../../domain/access.ts';
import type { ApiOperation } from '../../faces/kit/api-operation.ts';
import { API_TAGS } from './api-tags.ts';
import { buildOpenApiDocument } from './openapi-document.ts';

export const OPENAPI_DOCUMENT_ROUTE = '/openapi.json';
const REFERENCE_PREFIX = '/docs';

/**
 * The routes the API document and its reference page are served on: public, like `/healthz`, since
 * they say only what the code says. `/docs` redirects to `/docs/`, the page loads `/docs/js/scalar.js`.
 */
export const API_DOCS_PUBLIC_ROUTES: readonly string[] = [
  OPENAPI_DOCUMENT_ROUTE,
  REFERENCE_PREFIX,
  `${REFERENCE_PREFIX}/`,
  `${REFERENCE_PREFIX}/js/scalar.js`,
];

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

// The page is served from this server and fetches only from it: the policy lets nothing else load,
// so the reference works offline and tells no third party who reads it. Scalar's bundle injects its
// styles and is started by an inline script, hence 'unsafe-inline' (the page holds no user data).
const REFERENCE_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
    "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; " +
    "form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export interface ApiDocsOptions {
  /** The operations the faces and the server list (src/server/openapi/api-operations.ts). */
  operations: () => readonly ApiOperation[];
  /** What a key needs for a route (route-access.ts). */
  capabilityOf: (method: string, route: string) => Capability | undefined;
  /** Whether a route is answered without a key. */
  isPublic: (route: string) => boolean;
}

/**
 * Serves `GET /openapi.json` and the reference page at `/docs` (Scalar, from the installed package:
 * no CDN, no fonts or telemetry from elsewhere). Register it before any other route: it notes every
 * route added after it, and the document lists only operations whose route this server registered
 * (an endpoint a deployment turns off is not documented there).
 */
export async function registerApiDocs(app: FastifyInstance, options: ApiDocsOptions): Promise<void> {
  const registered = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) registered.add(`${method} ${route.url}`);
  });

  // Built once, on first request: by then every route is registered, and none can be added.
  let documentText: string | undefined;
  app.get(OPENAPI_DOCUMENT_ROUTE, async (_request, reply) => {
    documentText ??= JSON.stringify(
      buildOpenApiDocument({
        title: 'Baton API',
        version: PACKAGE_VERSION,
        description:
          'Baton is a self-hostable agent server built around client-executed tools: the run pauses, your ' +
          'application runs the tool and sends the result, the run resumes. Authenticate with an API key, as ' +
          '`Authorization: Bearer <key>` or `x-api-key: <key>`; each face answers errors in its own format.',
        tags: API_TAGS,
        operations: options
          .operations()
          .filter((operation) => registered.has(`${operation.method} ${operation.route}`)),
        capabilityOf: options.capabilityOf,
        isPublic: options.isPublic,
      }),
    );
    return reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(documentText);
  });

  await app.register(apiReference, {
    routePrefix: REFERENCE_PREFIX,
    configuration: {
      // Relative to /docs/, so the page works behind a proxy that mounts Baton under a path.
      sources: [{ url: `..${OPENAPI_DOCUMENT_ROUTE}`, title: 'Baton API' }],
      pageTitle: 'Baton API reference',
      // Everything that would reach Scalar's services is off: fonts, telemetry, the hosted client,
      // the AI agent and the developer toolbar (shown on localhost otherwise).
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: true,
      agent: { disabled: true },
      showDeveloperTools: 'never',
    },
    hooks: {
      onRequest: (_request: unknown, reply: FastifyReply, done: () => void) => {
        void reply.headers(REFERENCE_SECURITY_HEADERS);
        done();
      },
    },
    logLevel: 'warn',
  });
}
