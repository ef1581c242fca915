import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { takeIdempotency } from '../kit/streamed-reply.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { FaceContext } from '../kit/face-context.ts';
import { McpOriginPolicy } from './mcp-origins.ts';
import { JsonRpcErrorCode, jsonRpcErrorBody, renderJsonRpcHttpError } from './mcp-errors.ts';
import type { McpServerOptions } from './mcp-tool.ts';

export const MCP_PATH = '/mcp';

/**
 * The MCP SDK's server side, loaded on the first `/mcp` request: it is a large module graph that a
 * server never asked for MCP would load at start for nothing (start-up time and memory).
 */
let mcpServerModule: Promise<typeof import('./mcp-server.ts')> | undefined;
function loadMcpServer(): Promise<typeof import('./mcp-server.ts')> {
  mcpServerModule ??= import('./mcp-server.ts');
  return mcpServerModule;
}

export interface McpEndpointOptions extends McpServerOptions {
  /** The FaceContext hook, so auth/JSON/body-limit errors under `/mcp` are JSON-RPC errors. */
  useErrorFormat: FaceContext['useErrorFormat'];
  /** Web origins besides loopback ones whose pages may call the endpoint (`mcp.allowed_origins`). */
  allowedOrigins?: readonly string[];
}

/**
 * Mounts a stateless MCP endpoint (Streamable HTTP, JSON responses) at POST `/mcp`:
 * - every POST gets its own SDK `Server` and transport (no session id, no sticky sessions, no
 *   prior `initialize` needed), closed when the HTTP response closes;
 * - responses are JSON (`enableJsonResponse`), never SSE; the client must still Accept both
 *   `application/json` and `text/event-stream`, as the spec requires (the SDK answers 406 otherwise);
 * - GET and DELETE are 405 (no server-initiated stream, no sessions to end), as are PUT and PATCH;
 * - authentication is Baton's global hook; its errors, and malformed bodies, are JSON-RPC errors
 *   with `id: null` (401 also carries `WWW-Authenticate: Bearer`);
 * - a request whose `Origin` is not allowed (`McpOriginPolicy`) is a 403, before its body is read.
 */
export function registerMcpEndpoint(app: FastifyInstance, options: McpEndpointOptions): void {
  const { useErrorFormat, allowedOrigins, ...serverOptions } = options;
  useErrorFormat(MCP_PATH, (error) => renderJsonRpcHttpError(error, options.renderError));
  const origins = new McpOriginPolicy(allowedOrigins);
  const checkOrigin = async (request: FastifyRequest): Promise<void> => origins.check(request.headers.origin);

  app.route({
    method: 'POST',
    url: MCP_PATH,
    config: { beforeAuthentication: checkOrigin },
    onSend: addBearerChallenge,
    handler: async (request, reply) => {
      if (!request.principal)
        throw new BatonError(
          'missing_api_key',
          'Missing API key: send Authorization: Bearer <key> or x-api-key: <key>.',
        );
      const mcp = await loadMcpServer();
      mcp.assertJsonRpcBody(request.body);
      // The SDK writes the reply past Fastify's onSend, where an Idempotency-Key response would be
      // stored, so the key is released rather than left reserved. JSON-RPC ids correlate instead.
      await takeIdempotency(request).release();
      await mcp.serveMcpRequest(request, reply, mcp.createMcpServer(serverOptions, request.principal, request.log));
    },
  });

  app.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH'],
    url: MCP_PATH,
    config: { beforeAuthentication: checkOrigin },
    onSend: addBearerChallenge,
    handler: async (request, reply) =>
      reply
        .code(405)
        .header('allow', 'POST')
        .send(
          jsonRpcErrorBody(
            JsonRpcErrorCode.ServerError,
            `Method not allowed: ${request.method} ${MCP_PATH}. This MCP server is stateless (no sessions, ` +
              `no server-initiated SSE stream); send JSON-RPC requests with POST ${MCP_PATH}.`,
          ),
        ),
  });
}

async function addBearerChallenge(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (reply.statusCode === 401) reply.header('www-authenticate', 'Bearer');
  return payload;
}
