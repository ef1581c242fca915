import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import { assertOneOf } from '../aip/union-check.ts';
import type { CollectionSpec } from '../app-resources/collection-spec.ts';
import type { ToolKindRegistry } from '../tool-kinds/registry.ts';
import { refuseUnsupported, type RuleContext } from '../tools/common-rules.ts';
import { checkKindBody, COMMON_SETTINGS, SERVER_STAMPS } from '../tools/kind-body-rules.ts';

/** CES toolset types Baton does not run, each with the reason given when it is set. */
const REFUSALS: Record<string, string> = {
  connectorToolset:
    'connectorToolset is not supported by Baton (Integration Connectors are a Google Cloud service); use openApiToolset or mcpToolset.',
};

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

/**
 * Toolset resources: one of the registry's Toolset kinds (the `toolset_type` oneof, which on the
 * wire also has the refused members) plus the settings every toolset has.
 */
export function toolsetCollection(kinds: ToolKindRegistry): CollectionSpec {
  const types = [...kinds.keys('toolsets'), ...Object.keys(REFUSALS)];
  return {
    collection: 'toolsets',
    singular: 'toolset',
    codes: { notFound: 'toolset_not_found', exists: 'toolset_exists' },
    mask: {
      mutable: ['displayName', 'description', ...COMMON_SETTINGS, ...types],
      outputOnly: ['name', ...SERVER_STAMPS],
      unions: [types],
    },
    filterFields: [
      'name',
      'displayName',
      'description',
      ...SERVER_STAMPS,
      ...COMMON_SETTINGS,
      ...kinds.keys('toolsets'),
    ],
    derived: () => ({}),
    async validate(context, body, id) {
      refuseUnsupported(body, REFUSALS, 'toolset');
      assertOneOf(body, types, 'toolset', { required: true, name: 'toolset_type' });
      return checkKindBody(context, body, kinds, { collection: 'toolsets', singular: 'toolset' }, () =>
        checkUniqueDisplayName(context, body, id),
      );
    },
  };
}
