import type { ServerCall, ServerCallResult } from '../../engine/ports/tool-provider.ts';
import type { AppResourceRecord, JsonObject } from '../../domain/records.ts';
import { AuthError } from '../../tools/auth/auth-error.ts';
import type { OAuthTokenCache } from '../../tools/auth/oauth-token-cache.ts';
import { redactCredentials } from '../../tools/auth/credential-redaction.ts';
import { resolveContextVariables, resolveRequestAuth } from '../../tools/auth/request-auth.ts';
import { safeFetchTokenSender } from '../../tools/auth/token-sender.ts';
import type { McpToolsetClients } from '../../tools/mcp/mcp-toolset-client.ts';
import { runJsFunction } from '../../tools/sandbox/js-function.ts';
import { SandboxError } from '../../tools/sandbox/sandbox-error.ts';
import { caCertsOf, isObject, sandboxContext, type CallEnvironment } from './call-environment.ts';
import type { CompiledSources } from '../tool-kinds/compiled-openapi.ts';
import type { McpToolCatalog } from '../tool-kinds/mcp-tool-lists.ts';
import { callOpenApi } from '../tool-kinds/openapi-source.ts';
import { jsonResult, textResult } from './tool-results.ts';

export interface ServerToolExecution {
  record: AppResourceRecord;
  /** The tool's name inside a toolset or OpenAPI document. */
  toolName: string | undefined;
  call: ServerCall;
  environment: CallEnvironment;
  compiled: CompiledSources;
  oauth: OAuthTokenCache;
  mcp: { clients: McpToolsetClients; catalog: McpToolCatalog };
}

/** A jsFunction without its own timeout gets this long (a pure computation should be quick). */
const DEFAULT_JS_TIMEOUT_MS = 5_000;

/**
 * Runs one call of a server tool by the kind of its resource. Everything the model should know
 * about (bad credentials, a blocked address, a sandbox fault, an API error) is an error result;
 * only bugs throw.
 */
export async function executeServerTool(execution: ServerToolExecution): Promise<ServerCallResult> {
  const { record, call, environment } = execution;
  try {
    const body = record.body;
    if (isObject(body.openApiTool) || isObject(body.openApiToolset)) {
      const source = (isObject(body.openApiTool) ? body.openApiTool : body.openApiToolset) as JsonObject;
      const field = `${record.collection === 'tools' ? 'tool.openApiTool' : 'toolset.openApiToolset'}.apiAuthentication`;
      const auth = await authFor(execution, source, field);
      return await callOpenApi(
        await execution.compiled.openApi(record),
        execution.toolName ?? '',
        call.arguments,
        source,
        environment,
        auth.request,
      );
    }
    if (isObject(body.jsFunction)) {
      const fn = body.jsFunction;
      const outcome = await runJsFunction({
        code: String(fn.jsCode ?? ''),
        functionName: String(fn.name ?? call.tool.name),
        args: call.arguments,
        context: sandboxContext(environment),
        // Just under the tool's timeout, so the sandbox's own message (which names the function) wins.
        limits: {
          timeoutMs: call.tool.timeoutSeconds
            ? Math.max(50, Math.min(environment.timeoutMs, 60_000) - 100)
            : DEFAULT_JS_TIMEOUT_MS,
        },
      });
      return jsonResult(outcome.result);
    }
    if (isObject(body.mcpToolset)) return await callMcp(execution, body.mcpToolset);
    return textResult(
      `Tool '${call.tool.name}' (${record.collection}/${record.id}) is not a kind Baton executes.`,
      true,
    );
  } catch (error) {
    if (error instanceof AuthError || error instanceof SandboxError)
      return textResult(`Tool '${call.tool.name}' could not run: ${error.message}`, true);
    throw error;
  }
}

async function callMcp(execution: ServerToolExecution, mcp: JsonObject): Promise<ServerCallResult> {
  const { environment, call } = execution;
  const customHeaders = isObject(mcp.customHeaders) ? (mcp.customHeaders as Record<string, string>) : undefined;
  const headers = resolveContextVariables(customHeaders, environment.variables, 'toolset.mcpToolset.customHeaders');
  const auth = await authFor(execution, mcp, 'toolset.mcpToolset.apiAuthentication');
  const target = execution.mcp.catalog.target(mcp, { ...headers, ...auth.request.headers });
  if (auth.request.query) {
    const url = new URL(target.serverAddress);
    for (const [name, value] of Object.entries(auth.request.query)) url.searchParams.set(name, value);
    target.serverAddress = url.toString();
  }
  target.timeoutMs = environment.timeoutMs;
  const args = isObject(call.arguments) ? call.arguments : {};
  try {
    const result = await execution.mcp.clients.callTool(
      target,
      undefined,
      execution.toolName ?? call.tool.name,
      args,
      environment.signal,
    );
    return {
      ...result,
      output: result.output.map((part) =>
        part.type === 'text' ? { ...part, text: redactCredentials(part.text, auth.request) } : part,
      ),
    };
  } catch (error) {
    if (environment.signal.aborted) throw error;
    const problem = redactCredentials(error instanceof Error ? error.message : String(error), auth.request);
    return textResult(
      `MCP server ${String(mcp.serverAddress)} could not run '${execution.toolName ?? call.tool.name}': ${problem}`,
      true,
    );
  }
}

/** The request credentials of a source (OpenAPI or MCP), resolved for this call. */
async function authFor(execution: ServerToolExecution, source: JsonObject, field: string) {
  const { environment } = execution;
  const auth = isObject(source.apiAuthentication) ? source.apiAuthentication : undefined;
  const ca = caCertsOf(source.tlsConfig);
  const request = await resolveRequestAuth(auth, {
    readSecret: (reference) => environment.readSecret(reference),
    variables: environment.variables,
    oauth: execution.oauth,
    send: safeFetchTokenSender({ policy: environment.policy, ...(ca.length > 0 ? { ca } : {}) }),
    signal: environment.signal,
    field,
  });
  return { request };
}
