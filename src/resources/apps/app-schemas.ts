import { z } from 'zod';
import { listRequestFields } from '../aip/list-resources.ts';
import { retentionSettingsSchema } from '../../domain/retention.ts';

/** The CES App message as Baton keeps it (in AppRecord.settings), and the request messages of its methods. */

const outputOnly = (what: string) => z.string().optional().describe(`Output only: ${what}. Ignored on input.`);

export const appSchema = z.strictObject({
  name: z
    .string()
    .optional()
    .describe('projects/{p}/locations/{l}/apps/{app}. Ignored on create; identifies the app on update.'),
  displayName: z.string().optional().describe('Required.'),
  description: z.string().optional(),
  pinned: z.boolean().optional(),
  rootAgent: z
    .string()
    .optional()
    .describe('The entry agent: projects/{p}/locations/{l}/apps/{app}/agents/{agent}; must exist.'),
  languageSettings: z
    .strictObject({
      defaultLanguageCode: z.string().optional(),
      supportedLanguageCodes: z.array(z.string()).optional(),
      enableMultilingualSupport: z.boolean().optional(),
      fallbackAction: z.string().optional(),
    })
    .optional(),
  timeZoneSettings: z
    .strictObject({ timeZone: z.string().optional().describe('IANA time zone, e.g. "Europe/Lisbon".') })
    .optional(),
  modelSettings: z
    .strictObject({
      model: z.string().optional().describe('Default model of agents that name none, e.g. "openai:gpt-4o-mini".'),
      temperature: z.number().optional().describe('0 to 2.'),
    })
    .optional(),
  toolExecutionMode: z.enum(['TOOL_EXECUTION_MODE_UNSPECIFIED', 'PARALLEL', 'SEQUENTIAL']).optional(),
  globalInstruction: z.string().optional().describe('Instructions every agent of the app gets.'),
  variableDeclarations: z
    .array(
      z.strictObject({
        name: z.string().optional().describe('Required. Read as $context.variables.NAME.'),
        description: z.string().optional(),
        schema: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  retention: retentionSettingsSchema.optional(),
  createTime: outputOnly('RFC 3339 creation time'),
  updateTime: outputOnly('RFC 3339 time of the last update'),
  etag: outputOnly('changes on every update'),
  deploymentCount: z.number().int().optional().describe('Output only. Ignored on input.'),
  predefinedVariableDeclarations: z.array(z.unknown()).optional().describe('Output only. Ignored on input.'),
  validationErrors: z.array(z.unknown()).optional().describe('Output only. Ignored on input.'),
});

export const createAppRequestSchema = z.strictObject({
  parent: z.string().describe('projects/{project}/locations/{location}.'),
  appId: z.string().optional().describe('^[a-zA-Z0-9_-]{1,64}$, unique on this server; generated when absent.'),
  app: appSchema,
});

export const getAppRequestSchema = z.strictObject({
  name: z.string().describe('projects/{p}/locations/{l}/apps/{app}.'),
});

export const listAppsRequestSchema = z.strictObject({
  parent: z.string().describe('projects/{project}/locations/{location}.'),
  ...listRequestFields,
});

export const updateAppRequestSchema = z.strictObject({
  app: appSchema.describe('The app; `name` says which one.'),
  updateMask: z
    .string()
    .optional()
    .describe(
      'Comma-separated camelCase paths, e.g. "displayName,modelSettings.model". Absent or "*" replaces every field.',
    ),
});

export const deleteAppRequestSchema = z.strictObject({
  name: z.string().describe('projects/{p}/locations/{l}/apps/{app}.'),
  etag: z.string().optional().describe('Delete only if the app still has this etag.'),
});
