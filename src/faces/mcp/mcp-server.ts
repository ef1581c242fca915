import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ListToolsResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { Principal } from '../../domain/principal.ts';
import { requireCapability } from '../../domain/access.ts';
import { toBatonError } from '../kit/http-errors.ts';
import { checkToolArguments, mcpAjv } from './mcp-arguments.ts';
import { JsonRpcErrorCode, jsonRpcErrorBody, toolErrorResult, toolSuccessResult } from './mcp-errors.ts';
import type { AcceptedArguments, McpServerOptions, McpTool } from './mcp-tool.ts';

/**
 * The server side of Baton's MCP endpoint, over the MCP SDK (loaded by mcp-endpoint.ts on the
 * first request): one low-level SDK `Server` and stateless transport per request.
 */

// The SDK server builds a fresh Ajv (with formats) per instance unless given one: with a server
// per request that would be paid on every call. It is only used for elicitation; share ours.
const sharedSchemaValidator = new AjvJsonSchemaValidator(mcpAjv);

// The SDK's Protocol parses a request with the schema its handler was registered with and reports
// a mismatch as -32603 Internal error (a zod dump). Registered with this loose schema instead,
// `Server`'s own tools/call check runs first and answers a malformed call -32602 Invalid params.
const ToolsCallMethodSchema = z.looseObject({ method: z.literal('tools/call'), params: z.unknown().optional() });

/** The SDK transport would call a non-JSON-RPC body a parse error (-32700); JSON-RPC says -32600. */
export function assertJsonRpcBody(body: unknown): void {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length > 0 && messages.every((message) => JSONRPCMessageSchema.safeParse(message).success)) return;
  throw new BatonError(
    'invalid_jsonrpc_request',
    'Invalid Request: the body must be a JSON-RPC 2.0 message, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/list"}.',
  );
}

/** Hands one request to a fresh stateless transport; the server and transport close with the response. */
export async function serveMcpRequest(request: FastifyRequest, reply: FastifyReply, server: Server): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.hijack();
  reply.raw.on('close', () => {
    server.close().catch((error: unknown) => request.log.warn({ err: error }, 'closing the MCP server failed'));
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (error) {
    request.log.error({ err: error }, 'MCP request failed');
    if (reply.raw.headersSent) {
      reply.raw.end();
      return;
    }
    reply.raw.writeHead(500, { 'content-type': 'application/json' });
    reply.raw.end(
      JSON.stringify(
        jsonRpcErrorBody(
          JsonRpcErrorCode.InternalError,
          'Internal server error. The failure was logged with the request id; retry later.',
        ),
      ),
    );
  }
}

function describeTool(tool: McpTool): Tool {
  return {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: { ...tool.annotations },
  };
}

/**
 * An MCP server (low-level SDK `Server`, so plain JSON Schemas and annotations are served as given)
 * for one caller. Every tools/call failure is a tool result with `isError: true` whose text is the
 * rendered error, including an unknown tool name (as the SDK's McpServer does), so the model reads
 * what to fix; only malformed requests are JSON-RPC errors.
 */
export function createMcpServer(options: McpServerOptions, principal: Principal, log: FastifyBaseLogger): Server {
  const server = new Server(options.serverInfo, {
    capabilities: { tools: { listChanged: false } },
    jsonSchemaValidator: sharedSchemaValidator,
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  // Transport complaints (406, 415, …) are the client's fault and already answered.
  server.onerror = (error) => log.debug({ err: error }, 'MCP transport error');

  const toolsFor = (): readonly McpTool[] => {
    try {
      return options.tools(principal);
    } catch (error) {
      log.error({ err: error }, 'listing MCP tools failed');
      throw new McpError(
        ErrorCode.InternalError,
        'Internal error while listing tools. The failure was logged; retry later.',
      );
    }
  };

  server.setRequestHandler(ListToolsRequestSchema, async (): Promise<ListToolsResult> => ({
    tools: toolsFor().map(describeTool),
  }));

  server.setRequestHandler(ToolsCallMethodSchema, async (loose): Promise<CallToolResult> => {
    const request = CallToolRequestSchema.parse(loose); // already checked by Server: cannot throw
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const tools = toolsFor();
    const tool = tools.find((candidate) => candidate.name === name);
    if (!tool) {
      const known = tools.map((candidate) => candidate.name).join(', ');
      const error = new BatonError(
        'tool_not_found',
        `Unknown tool '${name}'. ${known ? `Available tools: ${known}.` : 'This server has no tools.'} Call tools/list for their input schemas.`,
        {
          param: 'name',
        },
      );
      return toolErrorResult(error, options.renderError);
    }
    let accepted: AcceptedArguments = { args, inCallerSpelling: (error) => error };
    try {
      if (tool.acceptArguments) accepted = tool.acceptArguments(args);
    } catch (error) {
      const refused = toBatonError(error, 0);
      if (refused.kind === 'internal') log.error({ err: error, tool: name }, 'MCP tool arguments could not be read');
      return toolErrorResult(refused, options.renderError);
    }
    const invalid = checkToolArguments(tool, accepted.args);
    if (invalid) {
      if (invalid.kind === 'internal')
        log.error({ err: invalid.cause, tool: name }, 'MCP tool input schema does not compile');
      return toolErrorResult(accepted.inCallerSpelling(invalid), options.renderError);
    }
    try {
      requireCapability(principal, tool.capability, `The tool ${name}`);
      return toolSuccessResult(await tool.handler(accepted.args, principal));
    } catch (error) {
      // Baton's usual mapping (BatonError as is, a bad cursor → invalid_request, anything else → internal).
      // The body limit only words Fastify's body errors, which a handler never throws.
      const engineError = accepted.inCallerSpelling(toBatonError(error, 0));
      if (engineError.kind === 'internal') log.error({ err: error, tool: name }, 'MCP tool failed');
      return toolErrorResult(engineError, options.renderError);
    }
  });
  return server;
}
