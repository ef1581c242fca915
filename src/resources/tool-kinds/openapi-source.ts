import type { ServerCallResult } from '../../engine/index.ts';
import type { ClientToolDefinition, JsonObject, ServerToolSource } from '../../domain/records.ts';
import { redactCredentials } from '../../tools/auth/credential-redaction.ts';
import { OpenApiError } from '../../tools/openapi/openapi-error.ts';
import type { OpenApiCompiler } from '../../tools/openapi/openapi-pool.ts';
import type { OpenApiToolset } from '../../tools/openapi/openapi-toolset.ts';
import type { RequestAuth } from '../../tools/openapi/openapi-types.ts';
import { caCertsOf, type CallEnvironment } from '../tools/call-environment.ts';
import { safeFetchSend } from '../../tools/openapi/safe-fetch-send.ts';
import { textResult } from '../tools/tool-results.ts';

/** Bytes of an API's response body kept for the model; the rest is cut with a marker. */
export const MAX_API_RESPONSE_BYTES = 100_000;

/** The OpenAPI part of a Tool (`openApiTool`) or Toolset (`openApiToolset`) body. */
type OpenApiSource = JsonObject;

/**
 * Builds the toolset of an OpenAPI source with `compiler` (the OpenAPI workers), for the app
 * `owner`; throws OpenApiError naming the problem (OpenApiLimitError past a limit).
 */
export async function compileOpenApi(
  source: OpenApiSource,
  compiler: OpenApiCompiler,
  owner: string,
): Promise<OpenApiToolset> {
  const options = {
    ...(typeof source.url === 'string' && source.url !== '' ? { url: source.url } : {}),
    ignoreUnknownFields: source.ignoreUnknownFields === true,
  };
  return compiler.compile(String(source.openApiSchema ?? ''), options, owner);
}

/**
 * The one operation an `openApiTool` stands for: the only one of its document, or the one whose
 * name (operationId) is the tool's `name`.
 */
export function operationOfTool(
  toolset: OpenApiToolset,
  openApiTool: OpenApiSource,
): { name: string; description: string; parameters: JsonObject } {
  const wanted = typeof openApiTool.name === 'string' && openApiTool.name !== '' ? openApiTool.name : undefined;
  const [only] = toolset.tools;
  if (toolset.tools.length === 1 && only) return only;
  const operation = toolset.operations.find((op) => op.name === wanted || op.operationId === wanted);
  const match = operation && toolset.tools.find((tool) => tool.name === operation.name);
  if (match) return match;
  throw new OpenApiError(
    `an openApiTool stands for one operation, but the document has ${toolset.tools.length} (${toolset.tools.map((tool) => tool.name).join(', ') || 'none'}); ` +
      `set openApiTool.name to one operationId, or use an openApiToolset`,
    'openApiTool.name',
  );
}

/** The model-facing definitions of an OpenAPI toolset's tools. */
export function openApiDefinitions(toolset: OpenApiToolset, source: ServerToolSource): ClientToolDefinition[] {
  return toolset.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    server: { ...source, toolName: tool.name },
  }));
}

/** Calls one operation through the egress guard, with the source's credentials and CAs. */
export async function callOpenApi(
  toolset: OpenApiToolset,
  operationName: string,
  args: unknown,
  source: OpenApiSource,
  environment: CallEnvironment,
  auth: RequestAuth,
): Promise<ServerCallResult> {
  const ca = caCertsOf(source.tlsConfig);
  const send = safeFetchSend({
    policy: environment.policy,
    ca,
    timeoutMs: environment.timeoutMs,
    maxResponseBytes: MAX_API_RESPONSE_BYTES,
    signal: environment.signal,
  });
  const output = await toolset.call(operationName, args, { send, auth, maxResponseBytes: MAX_API_RESPONSE_BYTES });
  // A query-string key travels in URLs, and a failed hop's URL is in the error (a redirect keeps
  // the query); an API may echo a credential too. The result goes to the model and the transcript.
  return textResult(redactCredentials(output.text, auth), output.isError);
}
