import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { Capability } from '../../domain/access.ts';
import type { BatonError } from '../../domain/errors/baton-error.ts';
import type { Principal } from '../../domain/principal.ts';

/**
 * A tool's input as plain JSON Schema. MCP requires an object schema (`"type": "object"`): the
 * SDK client rejects a tools/list whose inputSchema has another type.
 */
export interface McpInputSchema {
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
  [keyword: string]: unknown;
}

/** MCP tool annotations: hints for the client (never trusted for security), served exactly as given. */
export interface McpToolAnnotations {
  /** The tool does not change its environment. */
  readOnlyHint: boolean;
  /** The tool may destroy or overwrite data (meaningful when not read-only). */
  destructiveHint: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** The tool talks to things outside Baton (for example a model provider or the web). */
  openWorldHint: boolean;
}

/**
 * A tool the management MCP endpoint serves. The handler returns the JSON result (the same object
 * the REST endpoint would return) or throws; an BatonError becomes an MCP tool error the model
 * can act on. Arguments reach the handler only after they passed `inputSchema`.
 */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: McpInputSchema;
  annotations: McpToolAnnotations;
  /** What the caller's key must allow (src/domain/access.ts); checked before the handler runs. */
  capability: Capability;
  /**
   * Rewrites the arguments into the form `inputSchema` describes before they are checked (the CES
   * tools read proto field names, `display_name`, as their JSON names), with how to word an error
   * back in the caller's spelling. May throw a BatonError. Absent: arguments are taken as sent.
   */
  acceptArguments?(args: Record<string, unknown>): AcceptedArguments;
  handler(args: Record<string, unknown>, principal: Principal): Promise<unknown>;
}

/** Arguments as a tool reads them, and errors about them worded as the caller wrote them. */
export interface AcceptedArguments {
  args: Record<string, unknown>;
  inCallerSpelling(error: BatonError): BatonError;
}

/** Renders an error as the JSON body a tool error carries, e.g. a google.rpc.Status `{error:{code,message,status,details}}`. */
export type McpErrorRenderer = (error: BatonError) => object;

/** What one MCP server instance (one per HTTP request) serves. */
export interface McpServerOptions {
  /**
   * The tools, read on every tools/list and tools/call (so a list that changes is served as it is
   * now). Receives the caller, so a face may hide tools a key's role cannot use.
   */
  tools: (principal: Principal) => readonly McpTool[];
  /** Returned by `initialize`. */
  serverInfo: Implementation;
  /** Renders EngineErrors: the body of tool errors, and `error.data` of HTTP-level JSON-RPC errors. */
  renderError: McpErrorRenderer;
  /** Optional guidance the client may show the model after `initialize`. */
  instructions?: string;
}
