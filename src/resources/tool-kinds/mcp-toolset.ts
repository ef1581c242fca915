import { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { ServerCallResult } from '../../engine/index.ts';
import { redactCredentials } from '../../tools/auth/credential-redaction.ts';
import { resolveContextVariables } from '../../tools/auth/request-auth.ts';
import { asObject } from '../json-objects.ts';
import {
  checkApiAuthentication,
  checkContextVariable,
  checkHttpUrl,
  checkTlsConfig,
  refuseUnsupported,
  requireText,
  SERVICE_DIRECTORY_REFUSAL,
  type RuleContext,
} from '../tools/common-rules.ts';
import { apiAuthenticationSchema, serviceDirectoryConfigSchema, tlsConfigSchema } from '../tools/common-schemas.ts';
import { textResult } from '../tools/tool-results.ts';
import { requestCredentials } from './request-credentials.ts';
import type { KindCall, ToolsetKind } from './tool-kind.ts';
import type { ToolRuntime } from './tool-runtime.ts';

async function checkMcpToolset(context: RuleContext, mcp: JsonObject, prefix: string): Promise<JsonObject> {
  refuseUnsupported(mcp, { serviceDirectoryConfig: `${prefix}.${SERVICE_DIRECTORY_REFUSAL}` }, prefix);
  requireText(mcp, 'serverAddress', prefix);
  checkHttpUrl(mcp.serverAddress, `${prefix}.serverAddress`);
  await checkApiAuthentication(context, mcp.apiAuthentication, `${prefix}.apiAuthentication`);
  checkTlsConfig(mcp.tlsConfig, `${prefix}.tlsConfig`);
  for (const [header, value] of Object.entries(asObject(mcp.customHeaders) ?? {}))
    checkContextVariable(value, `${prefix}.customHeaders.${header}`);
  if (!Array.isArray(mcp.toolOverrides)) return mcp;
  // The snapshot is the server's copy of the tool as last seen: output only, never taken from a client.
  const toolOverrides = mcp.toolOverrides.map((entry, index) => {
    const { snapshot: _snapshot, ...override } = asObject(entry) ?? {};
    requireText(override, 'tool', `${prefix}.toolOverrides[${index}]`);
    return override;
  });
  return { ...mcp, toolOverrides };
}

/** Calls one tool on the server, with the session's custom headers and the toolset's credentials. */
async function callMcp(
  { member: mcp, toolName, prefix, call, environment }: KindCall,
  runtime: ToolRuntime,
): Promise<ServerCallResult> {
  const customHeaders = asObject(mcp.customHeaders) as Record<string, string> | undefined;
  const headers = resolveContextVariables(customHeaders, environment.variables, `${prefix}.customHeaders`);
  const auth = await requestCredentials(mcp, environment, runtime.oauth, `${prefix}.apiAuthentication`);
  const target = runtime.mcp.lists.target(mcp, { ...headers, ...auth.headers }, Object.keys(auth.headers ?? {}));
  if (auth.query) {
    const url = new URL(target.serverAddress);
    for (const [name, value] of Object.entries(auth.query)) url.searchParams.set(name, value);
    target.serverAddress = url.toString();
  }
  target.timeoutMs = environment.timeoutMs;
  const args = asObject(call.arguments) ?? {};
  try {
    const result = await runtime.mcp.clients.callTool(
      target,
      undefined,
      toolName ?? call.tool.name,
      args,
      environment.signal,
    );
    return {
      ...result,
      output: result.output.map((part) =>
        part.type === 'text' ? { ...part, text: redactCredentials(part.text, auth) } : part,
      ),
    };
  } catch (error) {
    if (environment.signal.aborted) throw error;
    const problem = redactCredentials(error instanceof Error ? error.message : String(error), auth);
    return textResult(
      `MCP server ${String(mcp.serverAddress)} could not run '${toolName ?? call.tool.name}': ${problem}`,
      true,
    );
  }
}

/**
 * `mcpToolset`: the tools an MCP server (Streamable HTTP) lists, each called on that server. The
 * list is fetched without credentials (as CES does), reused for a minute and pinned as a snapshot,
 * so turns that start while the server is down still offer its tools.
 */
export const mcpToolsetKind: ToolsetKind = {
  key: 'mcpToolset',
  collection: 'toolsets',
  executor: 'server',
  description: 'One of toolset_type: tools served by an MCP server.',
  schema: z.strictObject({
    serverAddress: z
      .string()
      .optional()
      .describe('Required. Streamable HTTP address of the MCP server, e.g. "https://example.com/mcp/".'),
    apiAuthentication: apiAuthenticationSchema.optional(),
    serviceDirectoryConfig: serviceDirectoryConfigSchema,
    tlsConfig: tlsConfigSchema.optional(),
    customHeaders: z.record(z.string(), z.string()).optional().describe('Header name → $context.variables.NAME.'),
    toolOverrides: z
      .array(
        z.strictObject({
          tool: z.string().optional().describe('Required. The tool name the server reports.'),
          nameOverride: z.string().optional(),
          descriptionOverride: z.string().optional(),
          snapshot: z.record(z.string(), z.unknown()).optional().describe('Output only. Ignored on input.'),
        }),
      )
      .optional(),
  }),
  validate: checkMcpToolset,
  async definitions({ record, member }, runtime) {
    // Listing sends no credentials and no session headers: CES lists tools without them.
    const listing = await runtime.mcp.lists.list(record.appId, record.id, record.revision, member, {});
    if (listing.problem) runtime.logger.warn({ toolset: record.id, snapshot: listing.fromSnapshot }, listing.problem);
    return listing.definitions;
  },
  run: callMcp,
  /**
   * Asked afresh (without credentials, as for turns); the answer also refreshes what turns use.
   * When the server does not answer, the pinned snapshot stands in; without one, UNAVAILABLE.
   */
  async inspect({ record, member }, runtime, toolsetName) {
    const listing = await runtime.mcp.lists.list(record.appId, record.id, record.revision, member, {}, { fresh: true });
    const serverAddress = String(member.serverAddress ?? '');
    if (listing.problem !== null && listing.snapshotTime === null) {
      throw new BatonError(
        'mcp_server_unavailable',
        `${listing.problem.replace(/\.+$/, '')}. The tools of toolset '${toolsetName}' are unavailable ` +
          `until the server answers (no snapshot of them was pinned yet); turns run without them meanwhile.`,
        { details: { toolset: toolsetName, server_address: serverAddress } },
      );
    }
    const tools = listing.definitions.map((tool) => {
      const id = tool.server?.toolName ?? tool.name;
      const mcpTool: JsonObject = {
        name: id,
        description: tool.description,
        inputSchema: tool.parameters,
        serverAddress,
      };
      if (tool.name !== id) mcpTool.nameOverride = tool.name;
      return { id, name: tool.name, description: tool.description, parameters: tool.parameters, wire: { mcpTool } };
    });
    const snapshot =
      listing.snapshotTime === null ? null : { pinTime: listing.snapshotTime, reason: listing.problem ?? '' };
    return { tools, snapshot };
  },
};
