import { z } from 'zod';
import { DURATION_RANGES } from '../../domain/duration-ranges.ts';

/**
 * zod shapes of the messages Tool and Toolset share. They check structure and types only, so the
 * MCP layer can publish them as JSON Schema; required fields and cross-field rules are checked in
 * code on the final resource (an update mask may legitimately send a partial member).
 */

/** A member Baton recognises but refuses, with the reason given when it is set. */
export function unsupportedMember(why: string) {
  return z.record(z.string(), z.unknown()).optional().describe(`Not supported by Baton: ${why}`);
}

export const executionTypeSchema = z
  .enum(['EXECUTION_TYPE_UNSPECIFIED', 'SYNCHRONOUS', 'ASYNCHRONOUS'])
  .describe(
    'SYNCHRONOUS (default): the turn waits for the result; ASYNCHRONOUS: it goes on and the result arrives later.',
  );

const { pendingCall, serverToolRun } = DURATION_RANGES;
const DURATION_RANGES_TEXT =
  `from "${pendingCall.min}s" to "${pendingCall.max}s" (${pendingCall.maxInWords}) for a clientFunction, ` +
  `to "${serverToolRun.max}s" (${serverToolRun.maxInWords}) for a tool Baton runs`;

export const durationSchema = z
  .string({ error: `must be a duration string in seconds with an "s" suffix, such as "30s": ${DURATION_RANGES_TEXT}` })
  .describe(`A duration in seconds with an "s" suffix, e.g. "30s" or "1.5s": ${DURATION_RANGES_TEXT}.`);

/** A CES Schema (`type: "OBJECT"`, upper case) or a JSON Schema object; stored as given. */
export const toolSchemaObject = z
  .record(z.string(), z.unknown())
  .describe('A CES Schema (type "OBJECT", …) or a JSON Schema object.');

export const toolFakeConfigSchema = z.strictObject({
  enableFakeMode: z.boolean().optional(),
  codeBlock: z
    .strictObject({
      jsCode: z
        .string()
        .optional()
        .describe('Required. JavaScript defining fake_tool_call(tool, input, ctx) or fake_<toolId>(tool, input, ctx).'),
      pythonCode: z.string().optional().describe('Not supported by Baton: use jsCode.'),
    })
    .optional(),
});

/** Baton's extension on Tool and Toolset (refused on a clientFunction, see common-rules.ts). */
export const requireApprovalSchema = z
  .boolean()
  .optional()
  .describe(
    'Baton extension: each call waits for a person to approve or deny it (POST /v1/tool-calls/{id}/decision) before it runs. Not for clientFunction.',
  );

/** Baton's extension on Tool and Toolset (refused on a clientFunction, see common-rules.ts). */
export const idempotentSchema = z
  .boolean()
  .optional()
  .describe(
    'Baton extension: a call may safely run twice with the same arguments. If the replica running it dies mid-call, ' +
      'the replica that takes the turn over runs it again; otherwise the model is told its outcome is unknown. Not for clientFunction.',
  );

/** Secret references: a Baton secret of the same app, by its name or a Secret Manager name (see secret-references.ts). */
const secretReference = z
  .string()
  .describe(
    'A secret of this app: projects/{p}/locations/{l}/apps/{a}/secrets/{secret} (optionally /versions/latest), ' +
      'or a Secret Manager version projects/{project}/secrets/{secret}/versions/{version}, read as the app secret {secret}.',
  );

export const apiAuthenticationSchema = z.strictObject({
  apiKeyConfig: z
    .strictObject({
      keyName: z.string().optional().describe('Required. The header or query parameter that carries the key.'),
      apiKeySecretVersion: secretReference.optional(),
      requestLocation: z
        .enum(['REQUEST_LOCATION_UNSPECIFIED', 'HEADER', 'QUERY_STRING'])
        .optional()
        .describe('Required: HEADER or QUERY_STRING.'),
    })
    .optional(),
  oauthConfig: z
    .strictObject({
      oauthGrantType: z.enum(['OAUTH_GRANT_TYPE_UNSPECIFIED', 'CLIENT_CREDENTIAL']).optional(),
      clientId: z.string().optional(),
      clientSecretVersion: secretReference.optional(),
      tokenEndpoint: z.string().optional().describe('http(s) URL of the token endpoint.'),
      scopes: z.array(z.string()).optional(),
    })
    .optional(),
  bearerTokenConfig: z
    .strictObject({
      token: z
        .string()
        .optional()
        .describe('Required: $context.variables.NAME; the token comes from the session, never from storage.'),
    })
    .optional(),
  serviceAgentIdTokenAuthConfig: unsupportedMember('it mints Google Cloud identity tokens.'),
  serviceAccountAuthConfig: unsupportedMember('it uses Google Cloud service accounts.'),
});

export const tlsConfigSchema = z.strictObject({
  caCerts: z
    .array(
      z.strictObject({
        displayName: z.string().optional(),
        cert: z
          .string()
          .optional()
          .describe('Required. The CA certificate: DER bytes, base64-encoded (as CES sends it), or PEM.'),
      }),
    )
    .optional()
    .describe('Required: at least one certificate, each checked when the resource is written.'),
});

export const serviceDirectoryConfigSchema = unsupportedMember(
  'Service Directory is a Google Cloud service; use a reachable URL.',
);
