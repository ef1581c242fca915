import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ErrorCode } from '../../domain/errors/error-catalogue.ts';
import type { JsonObject } from '../../domain/records.ts';
import { OpenApiError } from '../../tools/openapi/openapi-error.ts';
import { OpenApiLimitError } from '../../tools/openapi/openapi-limits.ts';
import type { OpenApiToolset } from '../../tools/openapi/openapi-toolset.ts';
import { WorkerPoolError } from '../../tools/workers/worker-pool-error.ts';
import {
  checkApiAuthentication,
  checkHttpUrl,
  checkTlsConfig,
  refuseUnsupported,
  requireText,
  SERVICE_DIRECTORY_REFUSAL,
  type RuleContext,
} from '../tools/common-rules.ts';
import { compileOpenApi } from './openapi-source.ts';

/** The rules of an OpenAPI source, in an `openApiTool` Tool or an `openApiToolset` Toolset. */

function invalid(field: string, message: string, code: ErrorCode = 'invalid_field'): never {
  throw new BatonError(code, message, { param: field });
}

/** The fields an OpenAPI source shares, in an `openApiTool` or an `openApiToolset`. */
export async function checkOpenApiSource(
  context: RuleContext,
  openApi: JsonObject,
  prefix: string,
): Promise<OpenApiToolset> {
  refuseUnsupported(openApi, { serviceDirectoryConfig: `${prefix}.${SERVICE_DIRECTORY_REFUSAL}` }, prefix);
  requireText(openApi, 'openApiSchema', prefix);
  checkHttpUrl(openApi.url, `${prefix}.url`);
  await checkApiAuthentication(context, openApi.apiAuthentication, `${prefix}.apiAuthentication`);
  checkTlsConfig(openApi.tlsConfig, `${prefix}.tlsConfig`);
  return compiledOpenApi(context, openApi, prefix);
}

/**
 * The whole document is parsed, validated and turned into tools now, so a broken one is never
 * stored. Even its syntax is checked in the OpenAPI workers: parsing a megabyte of YAML takes
 * seconds, which the event loop must not spend.
 */
async function compiledOpenApi(context: RuleContext, openApi: JsonObject, prefix: string): Promise<OpenApiToolset> {
  const field = `${prefix}.openApiSchema`;
  try {
    return await compileOpenApi(openApi, context.openApi, context.app.id);
  } catch (error) {
    if (error instanceof OpenApiLimitError) throw limitError(field, error, context);
    if (error instanceof OpenApiError)
      invalid(field, `${field} is not a usable OpenAPI document: ${error.message}`, 'invalid_openapi_schema');
    if (error instanceof WorkerPoolError) {
      throw new BatonError(
        'openapi_workers_busy',
        `${field} could not be read now: ${error.message}. Send the request again shortly.`,
        { param: field },
      );
    }
    throw error;
  }
}

/** A document past one of the operator's limits (tools.openapi.*): the limit is named, with its value. */
function limitError(field: string, error: OpenApiLimitError, context: RuleContext): BatonError {
  const limits = context.openApi.limits;
  const setting: Record<OpenApiLimitError['limit'], string> = {
    max_bytes: `tools.openapi.max_bytes is ${limits.maxBytes}`,
    max_refs: `tools.openapi.max_refs is ${limits.maxRefs}`,
    max_depth: `tools.openapi.max_depth is ${limits.maxDepth}`,
    timeout_seconds: `tools.openapi.timeout_seconds is ${limits.timeoutMs / 1000}`,
    memory: 'the OpenAPI workers have a fixed heap',
  };
  const code = error.limit === 'max_bytes' ? 'openapi_document_too_large' : 'openapi_document_too_complex';
  return new BatonError(code, `${field} is refused: ${error.message} (${setting[error.limit]}).`, {
    param: field,
    details: { limit: error.limit },
  });
}

/** Runs `work`, turning an OpenApiError into INVALID_ARGUMENT on `field`. */
export function asOpenApiError<T>(field: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof OpenApiError) invalid(field, `${field}: ${error.message}`, 'invalid_openapi_schema');
    throw error;
  }
}
