import { OpenApiError } from './openapi-error.ts';
import { OpenApiLimitError, type OpenApiLimitName, type OpenApiLimits } from './openapi-limits.ts';
import { OpenApiToolset, type OpenApiToolsetData, type OpenApiToolsetOptions } from './openapi-toolset.ts';

/**
 * The task module of the OpenAPI pool's workers (openapi-pool.ts): reads one document into a
 * toolset's data. An OpenApiError comes back as data (an Error crossing threads keeps only its
 * message); anything else is a bug and fails the task.
 */

export interface OpenApiTask {
  readonly text: string;
  readonly options: OpenApiToolsetOptions;
  readonly limits: OpenApiLimits;
}

export interface OpenApiErrorData {
  /** The message without its `where` prefix. */
  readonly message: string;
  readonly where: string | undefined;
  readonly limit: OpenApiLimitName | undefined;
}

export type OpenApiTaskOutcome =
  { readonly ok: true; readonly data: OpenApiToolsetData } | { readonly ok: false; readonly error: OpenApiErrorData };

/**
 * The worker reports ready once it has read a small document: the first read compiles the
 * OpenAPI meta-schemas (most of a second), which would otherwise count against a real document's budget.
 */
export const ready: Promise<unknown> = OpenApiToolset.compile(
  'openapi: 3.0.3\ninfo: {title: warm-up, version: "1"}\nservers: [{url: "https://warm-up.example"}]\n' +
    'paths: {/a: {get: {operationId: a, responses: {"200": {description: ok}}}}}',
);

export default async function compileOpenApiTask(task: OpenApiTask): Promise<OpenApiTaskOutcome> {
  try {
    return { ok: true, data: await OpenApiToolset.compile(task.text, task.options, task.limits) };
  } catch (error) {
    if (!(error instanceof OpenApiError)) throw error;
    const { where } = error;
    const message = where === undefined ? error.message : error.message.slice(where.length + 2);
    return {
      ok: false,
      error: { message, where, limit: error instanceof OpenApiLimitError ? error.limit : undefined },
    };
  }
}

/** The error a worker sent back, as the OpenApiError it was. */
export function openApiErrorFrom(data: OpenApiErrorData): OpenApiError {
  return data.limit === undefined
    ? new OpenApiError(data.message, data.where)
    : new OpenApiLimitError(data.limit, data.message);
}
