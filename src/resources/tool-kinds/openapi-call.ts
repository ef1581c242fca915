import type { ServerCallResult } from '../../engine/index.ts';
import { callOpenApi } from './openapi-source.ts';
import { requestCredentials } from './request-credentials.ts';
import type { KindCall } from './tool-kind.ts';
import type { ToolRuntime } from './tool-runtime.ts';

/** Runs one call of an OpenAPI kind (`openApiTool`, `openApiToolset`): its operation, with the source's credentials. */
export async function runOpenApiCall(
  { record, member, toolName, prefix, call, environment }: KindCall,
  runtime: ToolRuntime,
): Promise<ServerCallResult> {
  const auth = await requestCredentials(member, environment, runtime.oauth, `${prefix}.apiAuthentication`);
  return callOpenApi(
    await runtime.openApi.compile(record, member),
    toolName ?? '',
    call.arguments,
    member,
    environment,
    auth,
  );
}
