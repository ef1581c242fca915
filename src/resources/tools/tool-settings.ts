import { z } from 'zod';
import { DEFAULT_OPENAPI_LIMITS, type OpenApiLimits } from '../../tools/openapi/openapi-limits.ts';

/**
 * What the operator sets about server tools (`tools:` in baton.yaml): how many worker threads run
 * them, the longest timeout any tool may have, and what an OpenAPI document may cost to read.
 * The README's configuration section documents each key with its default and range.
 */
export interface ToolSettings {
  /** Worker threads of the JavaScript sandbox (`tools.sandbox_workers`). */
  readonly sandboxWorkers: number;
  /** Every server tool's timeout is clamped to this (`tools.max_timeout_seconds`). */
  readonly maxTimeoutSeconds: number;
  /** Worker threads that read OpenAPI documents (`tools.openapi.workers`). */
  readonly openApiWorkers: number;
  /** `tools.openapi.max_bytes`, `max_refs`, `max_depth`, `timeout_seconds`. */
  readonly openApi: OpenApiLimits;
}

export const DEFAULT_TOOL_SETTINGS: ToolSettings = Object.freeze({
  sandboxWorkers: 2,
  maxTimeoutSeconds: 60,
  openApiWorkers: 1,
  openApi: DEFAULT_OPENAPI_LIMITS,
});

/** The `tools:` section of baton.yaml, with each key's range. */
export const toolSettingsFileSchema = z
  .object({
    sandbox_workers: z.coerce.number().int().min(1).max(64).optional().meta({
      description: 'Worker threads of the JavaScript sandbox (jsFunction tools and tool fakes).',
      default: DEFAULT_TOOL_SETTINGS.sandboxWorkers,
    }),
    max_timeout_seconds: z.coerce.number().min(1).max(600).optional().meta({
      description: 'The longest any server tool may run, in seconds: a longer tool timeout is clamped to this.',
      default: DEFAULT_TOOL_SETTINGS.maxTimeoutSeconds,
    }),
    openapi: z
      .object({
        workers: z.coerce.number().int().min(1).max(16).optional().meta({
          description: 'Worker threads that read OpenAPI documents.',
          default: DEFAULT_TOOL_SETTINGS.openApiWorkers,
        }),
        max_bytes: z.coerce.number().int().min(1024).max(52_428_800).optional().meta({
          description: "An OpenAPI document's largest size, in UTF-8 bytes.",
          default: DEFAULT_TOOL_SETTINGS.openApi.maxBytes,
        }),
        max_refs: z.coerce.number().int().min(0).max(1_000_000).optional().meta({
          description: 'The most $ref replacements a document may need once dereferenced.',
          default: DEFAULT_TOOL_SETTINGS.openApi.maxRefs,
        }),
        max_depth: z.coerce.number().int().min(8).max(1000).optional().meta({
          description: 'The deepest nesting of a document once dereferenced.',
          default: DEFAULT_TOOL_SETTINGS.openApi.maxDepth,
        }),
        timeout_seconds: z.coerce
          .number()
          .min(1)
          .max(300)
          .optional()
          .meta({
            description: 'The wall-clock budget for reading one document, in seconds.',
            default: DEFAULT_TOOL_SETTINGS.openApi.timeoutMs / 1000,
          }),
      })
      .strict()
      .optional()
      .describe('What an OpenAPI document may cost to read (OpenAPI tools and toolsets).'),
  })
  .strict()
  .describe('Server tools: worker threads for untrusted work, the longest timeout any tool gets, OpenAPI limits.');

export type ToolSettingsFile = z.infer<typeof toolSettingsFileSchema>;

/** The settings the file gives, defaults for the rest. */
export function toolSettingsFrom(file: ToolSettingsFile | undefined): ToolSettings {
  const defaults = DEFAULT_TOOL_SETTINGS;
  const openApi = file?.openapi;
  return {
    sandboxWorkers: file?.sandbox_workers ?? defaults.sandboxWorkers,
    maxTimeoutSeconds: file?.max_timeout_seconds ?? defaults.maxTimeoutSeconds,
    openApiWorkers: openApi?.workers ?? defaults.openApiWorkers,
    openApi: {
      maxBytes: openApi?.max_bytes ?? defaults.openApi.maxBytes,
      maxRefs: openApi?.max_refs ?? defaults.openApi.maxRefs,
      maxDepth: openApi?.max_depth ?? defaults.openApi.maxDepth,
      timeoutMs: openApi?.timeout_seconds !== undefined ? openApi.timeout_seconds * 1000 : defaults.openApi.timeoutMs,
    },
  };
}
