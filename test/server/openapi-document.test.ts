import { validate, compileErrors } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordRegisteredRoutes, type RegisteredRoute } from '../helpers/registered-routes.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

type Operation = {
  operationId: string;
  tags: string[];
  security?: unknown[];
  parameters?: { name?: string; in?: string; $ref?: string }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  externalDocs?: { url: string };
};
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, string>>; schemas: Record<string, unknown> };
  security: unknown[];
};

/**
 * Routes that are deliberately not in the API document, each with why: the console and the
 * reference page are web pages with their assets, not API; `/mcp` answers PUT and PATCH only with
 * 405 (GET and DELETE, which the MCP transport defines, are documented as refused).
 */
const UNDOCUMENTED: Readonly<Record<string, string>> = {
  'GET /console': 'the approval console (a web page)',
  'GET /console/': 'the approval console (a web page)',
  'GET /console/assets/:name': "the console's assets",
  'GET /docs': 'the reference page (redirects to /docs/)',
  'GET /docs/': 'the reference page itself',
  'GET /docs/js/scalar.js': "the reference page's script",
  'PUT /mcp': '405 only',
  'PATCH /mcp': '405 only',
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Whether a documented path is what a Fastify route pattern serves: `:param` is a `{param}`, or
 * a custom method `{name}:verb` in one segment (CES `sessions/{session}:runSession`); `*` is one
 * trailing parameter.
 */
function servedBy(route: string, path: string): boolean {
  const pattern = route
    .split('/')
    .map((segment) =>
      segment.startsWith(':')
        ? '\\{[^}/]+\\}(?::[A-Za-z]+)?'
        : segment === '*'
          ? '\\{[^}/]+\\}'
          : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${pattern}$`).test(path);
}

describe('GET /openapi.json', () => {
  let server: TestBaton;
  let routes: RegisteredRoute[];
  let document: Document;

  beforeAll(async () => {
    const recorder = recordRegisteredRoutes();
    try {
      server = await startTestBaton();
    } finally {
      recorder.stop();
    }
    routes = recorder.routes.filter((route) => route.method !== 'HEAD' && route.method !== 'OPTIONS');
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    document = (await response.json()) as Document;
  });
  afterAll(async () => server?.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    // validate() dereferences in place: give it a copy.
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : compileErrors(result)).toEqual([]);
  });

  it('documents every route the server registered, except the ones named above', () => {
    expect(routes.length).toBeGreaterThan(50);
    const missing = routes
      .filter((route) => !(`${route.method} ${route.url}` in UNDOCUMENTED))
      .filter(
        (route) =>
          !Object.entries(document.paths).some(
            ([path, operations]) => servedBy(route.url, path) && route.method.toLowerCase() in operations,
          ),
      )
      .map((route) => `${route.method} ${route.url}`);
    expect(missing).toEqual([]);
  });

  it('documents no operation the server does not serve', () => {
    const stale: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations).filter((key) => METHODS.includes(key))) {
        const served = routes.some((route) => route.method.toLowerCase() === method && servedBy(route.url, path));
        if (!served) stale.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(stale).toEqual([]);
  });

  it('names the key schemes the server accepts, and marks the public operations', () => {
    expect(document.components.securitySchemes).toMatchObject({
      bearerKey: { type: 'http', scheme: 'bearer' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
    });
    expect(document.security).toEqual([{ bearerKey: [] }, { apiKeyHeader: [] }]);
    expect(document.paths['/healthz']?.get?.security).toEqual([]);
    expect(document.paths['/openapi.json']?.get?.security).toEqual([]);
    expect(document.paths['/v1/threads']?.post?.security).toBeUndefined();
  });

  it("answers errors in each face's own format", () => {
    const errorSchema = (path: string, method: string) =>
      document.paths[path]?.[method]?.responses['4XX']?.content?.['application/json']?.schema?.$ref;
    expect(errorSchema('/v1/threads', 'post')).toBe('#/components/schemas/NativeError');
    expect(errorSchema('/v1/tool-calls/{id}/result', 'post')).toBe('#/components/schemas/NativeError');
    expect(errorSchema('/v1/chat/completions', 'post')).toBe('#/components/schemas/OpenAIError');
    expect(errorSchema('/v1/responses', 'post')).toBe('#/components/schemas/OpenAIError');
    expect(errorSchema('/v1/projects/{project}/locations/{location}/apps/{app}/tools', 'post')).toBe(
      '#/components/schemas/GoogleRpcStatus',
    );
    expect(errorSchema('/mcp', 'post')).toBe('#/components/schemas/JsonRpcError');
  });

  it('takes request bodies and queries from the schemas the routes validate with', () => {
    const postMessage = document.paths['/v1/threads/{id}/messages']?.post;
    expect(JSON.stringify(postMessage?.requestBody)).toContain('tool_result');
    expect(postMessage?.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    const listCalls = document.paths['/v1/tool-calls']?.get;
    expect(listCalls?.parameters?.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['state', 'agent', 'thread_id', 'tool', 'created_before', 'limit', 'after']),
    );
    // The CES resources follow the server's tool kinds.
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['ces.Tool', 'ces.Toolset', 'Thread', 'LedgerEntry']),
    );
    expect(JSON.stringify(document.components.schemas['ces.Tool'])).toContain('clientFunction');
  });

  it('links the Responses API to the Open Responses specification', () => {
    const create = document.paths['/v1/responses']?.post;
    expect(create?.externalDocs?.url).toBe('https://www.openresponses.org');
    expect(document.paths['/nodexa/v1/responses']?.post?.tags).toEqual(['Responses (Nodexa dialect)']);
  });

  it('is served without a key, while the API still needs one', async () => {
    const anonymous = await fetch(`${server.url}/openapi.json`);
    expect(anonymous.status).toBe(200);
    const page = await fetch(`${server.url}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(await page.text()).not.toMatch(/cdn\.jsdelivr|https:\/\/fonts/);
    expect((await fetch(`${server.url}/v1/threads`)).status).toBe(401);
  });
});

describe('GET /openapi.json with metrics on', () => {
  it('documents /metrics with the metrics token, not an API key; without metrics it is left out', async () => {
    const withMetrics = await startTestBaton({
      telemetry: { metrics: { token: 'metrics-token-0123456789', listen: null }, tracing: null },
    });
    try {
      const document = (await (await fetch(`${withMetrics.url}/openapi.json`)).json()) as Document;
      expect(document.paths['/metrics']?.get?.security).toEqual([{ metricsToken: [] }]);
      expect(document.components.securitySchemes.metricsToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    } finally {
      await withMetrics.close();
    }
    const without = await startTestBaton();
    try {
      const document = (await (await fetch(`${without.url}/openapi.json`)).json()) as Document;
      expect(document.paths['/metrics']).toBeUndefined();
    } finally {
      await without.close();
    }
  });
});
