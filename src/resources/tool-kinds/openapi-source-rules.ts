import { parse as parseYaml } from 'yaml';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ErrorCode } from '../../domain/errors/error-catalogue.ts';
import type { JsonObject } from '../../domain/records.ts';
import { OpenApiError } from '../../tools/openapi/openapi-error.ts';
import type { OpenApiToolset } from '../../tools/openapi/openapi-toolset.ts';
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

/** An OpenAPI document in JSON or YAML (JSON is valid YAML); only its syntax is checked here. */
export function checkOpenApiSchema(object: JsonObject, prefix: string): void {
  const text = requireText(object, 'openApiSchema', prefix);
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    invalid(
      `${prefix}.openApiSchema`,
      `${prefix}.openApiSchema is neither JSON nor YAML: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    invalid(
      `${prefix}.openApiSchema`,
      `${prefix}.openApiSchema must be an OpenAPI document (a JSON or YAML object with openapi, info and paths).`,
    );
  }
}

/** The fields an OpenAPI source shares, in an `openApiTool` or an `openApiToolset`. */
export async function checkOpenApiSource(
  context: RuleContext,
  openApi: JsonObject,
  prefix: string,
): Promise<OpenApiToolset> {
  refuseUnsupported(openApi, { serviceDirectoryConfig: `${prefix}.${SERVICE_DIRECTORY_REFUSAL}` }, prefix);
  checkOpenApiSchema(openApi, prefix);
  checkHttpUrl(openApi.url, `${prefix}.url`);
  await checkApiAuthentication(context, openApi.apiAuthentication, `${prefix}.apiAuthentication`);
  checkTlsConfig(openApi.tlsConfig, `${prefix}.tlsConfig`);
  return compiledOpenApi(openApi, prefix);
}

/** The whole document is parsed, validated and turned into tools now, so a broken one is never stored. */
async function compiledOpenApi(openApi: JsonObject, prefix: string): Promise<OpenApiToolset> {
  try {
    return await compileOpenApi(openApi);
  } catch (error) {
    if (error instanceof OpenApiError)
      invalid(
        `${prefix}.openApiSchema`,
        `${prefix}.openApiSchema is not a usable OpenAPI document: ${error.message}`,
        'invalid_openapi_schema',
      );
    throw error;
  }
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
