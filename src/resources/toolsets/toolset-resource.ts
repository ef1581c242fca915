import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import { assertOneOf } from '../aip/union-check.ts';
import type { ResourceKind } from '../app-resources/app-resource-crud.ts';
import {
  checkApiAuthentication,
  checkContextVariable,
  checkDuration,
  checkHttpUrl,
  checkOpenApiSource,
  checkTlsConfig,
  checkRequireApproval,
  checkToolFakeConfig,
  refuseUnsupported,
  requireText,
  SERVICE_DIRECTORY_REFUSAL,
  type RuleContext,
} from '../tools/common-rules.ts';
import { asObject } from '../aip/service-support.ts';

const TOOLSET_TYPES = ['mcpToolset', 'openApiToolset', 'connectorToolset'];

async function checkMcpToolset(context: RuleContext, mcp: JsonObject): Promise<JsonObject> {
  const prefix = 'toolset.mcpToolset';
  refuseUnsupported(mcp, { serviceDirectoryConfig: `${prefix}.${SERVICE_DIRECTORY_REFUSAL}` }, prefix);
  requireText(mcp, 'serverAddress', prefix);
  checkHttpUrl(mcp.serverAddress, `${prefix}.serverAddress`);
  await checkApiAuthentication(context, mcp.apiAuthentication, `${prefix}.apiAuthentication`);
  checkTlsConfig(mcp.tlsConfig, `${prefix}.tlsConfig`);
  for (const [header, value] of Object.entries(asObject(mcp.customHeaders) ?? {}))
    checkContextVariable(value, `${prefix}.customHeaders.${header}`);
  if (!Array.isArray(mcp.toolOverrides)) return mcp;
  // The snapshot is the server's copy of the tool as last seen: output only, never taken from a client.
  const toolOverrides = mcp.toolOverrides.map((entry, index) => {
    const { snapshot: _snapshot, ...override } = asObject(entry) ?? {};
    requireText(override, 'tool', `${prefix}.toolOverrides[${index}]`);
    return override;
  });
  return { ...mcp, toolOverrides };
}

/** displayName must be unique within the app (CES says so; Baton answers ALREADY_EXISTS). */
async function checkUniqueDisplayName(context: RuleContext, body: JsonObject, id: string): Promise<void> {
  if (typeof body.displayName !== 'string' || body.displayName === '') return;
  const toolsets = await context.store.resources.list(context.app.id, 'toolsets');
  const clash = toolsets.find((toolset) => toolset.id !== id && toolset.body.displayName === body.displayName);
  if (clash) {
    throw new BatonError(
      'duplicate_display_name',
      `Toolset '${clash.id}' of this app already has displayName '${body.displayName}'; toolset display names must be unique within an app.`,
      { param: 'toolset.displayName' },
    );
  }
}

export const toolsetKind: ResourceKind = {
  collection: 'toolsets',
  singular: 'toolset',
  codes: { notFound: 'toolset_not_found', exists: 'toolset_exists' },
  mask: {
    mutable: [
      'displayName',
      'description',
      'executionType',
      'timeout',
      'toolFakeConfig',
      'requireApproval',
      ...TOOLSET_TYPES,
    ],
    outputOnly: ['name', 'createTime', 'updateTime', 'etag'],
    unions: [TOOLSET_TYPES],
  },
  filterFields: [
    'name',
    'displayName',
    'description',
    'createTime',
    'updateTime',
    'etag',
    'executionType',
    'timeout',
    'toolFakeConfig',
    'requireApproval',
    'mcpToolset',
    'openApiToolset',
  ],
  derived: () => ({}),
  async validate(context, body, id) {
    refuseUnsupported(
      body,
      {
        connectorToolset:
          'connectorToolset is not supported by Baton (Integration Connectors are a Google Cloud service); use openApiToolset or mcpToolset.',
      },
      'toolset',
    );
    assertOneOf(body, TOOLSET_TYPES, 'toolset', { required: true, name: 'toolset_type' });
    checkDuration(body.timeout, 'toolset.timeout');
    checkToolFakeConfig(body.toolFakeConfig, 'toolset.toolFakeConfig');
    checkRequireApproval(body, 'toolset.requireApproval');
    await checkUniqueDisplayName(context, body, id);
    const mcp = asObject(body.mcpToolset);
    if (mcp) return { ...body, mcpToolset: await checkMcpToolset(context, mcp) };
    await checkOpenApiSource(context, asObject(body.openApiToolset) ?? {}, 'toolset.openApiToolset');
    return body;
  },
};
