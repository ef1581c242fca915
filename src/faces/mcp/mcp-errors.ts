import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BatonError } from '../../domain/errors/baton-error.ts';
import type { McpErrorRenderer } from './mcp-tool.ts';

/** JSON-RPC 2.0 error codes, plus the -32000…-32099 server range the MCP SDK uses for transport errors. */
export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Generic server/transport error (the SDK's 405, 406, 415). */
  ServerError: -32000,
  /** Missing or invalid credentials. */
  Unauthorized: -32001,
} as const;

export interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  error: { code: number; message: string; data?: unknown };
  id: null;
}

export function jsonRpcErrorBody(code: number, message: string, data?: unknown): JsonRpcErrorBody {
  return { jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id: null };
}

/** The JSON-RPC code for an error that stops a request before it reaches the MCP server. */
export function jsonRpcCodeOf(error: BatonError): number {
  if (error.code === 'invalid_json') return JsonRpcErrorCode.ParseError;
  switch (error.kind) {
    case 'invalid_request':
      return JsonRpcErrorCode.InvalidRequest;
    case 'unauthorized':
      return JsonRpcErrorCode.Unauthorized;
    case 'internal':
      return JsonRpcErrorCode.InternalError;
    default:
      return JsonRpcErrorCode.ServerError;
  }
}

/**
 * HTTP-level errors under `/mcp` (auth, bad JSON, not JSON-RPC, body too large, wrong content
 * type, idempotency): a JSON-RPC error envelope with `id: null`, the face's rendered body as
 * `error.data`, and the status Baton uses for the error.
 */
export function renderJsonRpcHttpError(
  error: BatonError,
  renderError: McpErrorRenderer,
): { status: number; body: JsonRpcErrorBody } {
  return { status: error.status, body: jsonRpcErrorBody(jsonRpcCodeOf(error), error.message, renderError(error)) };
}

/** A tool's JSON result: pretty JSON text for the model, and `structuredContent` when it is an object. */
export function toolSuccessResult(result: unknown): CallToolResult {
  const text = JSON.stringify(result ?? null, null, 2);
  const isObject = typeof result === 'object' && result !== null && !Array.isArray(result);
  return {
    content: [{ type: 'text', text }],
    ...(isObject ? { structuredContent: result as Record<string, unknown> } : {}),
  };
}

/** A tool error (`isError: true`): the rendered error body as JSON text, so the model can read what to fix. */
export function toolErrorResult(error: BatonError, renderError: McpErrorRenderer): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(renderError(error), null, 2) }], isError: true };
}
