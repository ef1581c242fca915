import { z } from 'zod';

/** Apps, principals and API keys as the admin routes (admin-routes.ts, key-views.ts) show them. */

const role = z.enum(['reader', 'member', 'admin', 'operator']);

export const apiKeySchema = z
  .object({
    object: z.literal('api_key'),
    id: z.string(),
    app_id: z.string(),
    name: z.string().nullable(),
    prefix: z
      .string()
      .describe('The first characters of the key, to tell keys apart; the key itself is never shown again.'),
    role,
    created_at: z.string(),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    tools: z
      .array(z.string())
      .optional()
      .describe('A worker key: the tools whose calls it may claim and answer (docs/tool-workers.md).'),
  })
  .meta({ id: 'ApiKey' });

export const issuedKeySchema = apiKeySchema
  .extend({ key: z.string().describe('The secret (`bk_…`), shown this once: store it now.') })
  .meta({ id: 'IssuedApiKey' });

export const createdAppSchema = z.object({
  object: z.literal('app'),
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  api_key: z
    .object({ id: z.string(), key: z.string(), role: role })
    .describe("The app's first key (an admin of this app only), shown this once."),
});

export const principalSchema = z.object({
  object: z.literal('principal'),
  app: z.object({
    id: z.string(),
    name: z.string(),
    project: z.string(),
    location: z.string(),
    resource_name: z.string().describe("The app's CES resource name: projects/{p}/locations/{l}/apps/{app}."),
  }),
  key: z.object({ id: z.string(), role }),
});
