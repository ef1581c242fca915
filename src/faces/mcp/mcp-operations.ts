import { z } from 'zod';
import type { ApiOperation } from '../kit/api-operation.ts';
import { MCP_PATH } from './mcp-endpoint.ts';
import { JSON_RPC_ERRORS } from './json-rpc-error-schema.ts';

const MCP_DOCS = {
  url: 'https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http',
  description: 'MCP Streamable HTTP transport',
};

const jsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    method: z.string().optional(),
    id: z.union([z.string(), z.number()]).optional(),
  })
  .describe('A JSON-RPC 2.0 request or notification, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/list"}.');

const stateless =
  'This MCP server is stateless (no sessions, no server-initiated stream): it answers 405 with a JSON-RPC error. ' +
  'Send every request with POST.';

/**
 * `/mcp` (mcp-endpoint.ts), for the API document: MCP over Streamable HTTP, described by the MCP
 * specification; the tools themselves are listed by `tools/list`. PUT and PATCH also answer 405
 * and are left out of the document.
 */
export const MCP_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'POST',
    route: MCP_PATH,
    operationId: 'mcpRequest',
    summary: 'Send an MCP request',
    description:
      'The management MCP server: `create_toolset`, `list_toolsets`, … and the same for apps, agents and tools, taking ' +
      'the JSON of the CES REST requests. Accept both `application/json` and `text/event-stream`; answers are JSON. ' +
      'No `initialize` is needed first.',
    tag: 'MCP',
    body: { schema: z.union([jsonRpcMessage, z.array(jsonRpcMessage)]) },
    responses: {
      200: { description: 'The JSON-RPC response.', schema: z.looseObject({ jsonrpc: z.literal('2.0') }) },
      202: { description: 'Accepted: the body held only notifications or responses.' },
    },
    errors: JSON_RPC_ERRORS,
    externalDocs: MCP_DOCS,
  },
  ...(['GET', 'DELETE'] as const).map((method): ApiOperation => ({
    method,
    route: MCP_PATH,
    operationId: method === 'GET' ? 'mcpOpenStream' : 'mcpEndSession',
    summary: method === 'GET' ? 'Open a server stream (not offered)' : 'End a session (not offered)',
    description: stateless,
    tag: 'MCP',
    responses: {},
    errors: JSON_RPC_ERRORS,
    externalDocs: MCP_DOCS,
  })),
];
