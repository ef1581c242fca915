import type { JsonObject } from '../../domain/records.ts';
import { assertOneOf } from '../aip/union-check.ts';
import type { CollectionSpec } from '../app-resources/collection-spec.ts';
import { asObject } from '../json-objects.ts';
import type { ToolKindRegistry } from '../tool-kinds/registry.ts';
import { refuseUnsupported } from './common-rules.ts';
import { checkKindBody, COMMON_SETTINGS, SERVER_STAMPS } from './kind-body-rules.ts';
import { wordList } from '../word-list.ts';

/** CES tool types Baton does not run (Google Cloud services, or no runtime for them), refused on write. */
const REFUSED = [
  'googleSearchTool',
  'connectorTool',
  'dataStoreTool',
  'fileSearchTool',
  'systemTool',
  'agentTool',
  'widgetTool',
  'remoteAgentTool',
];

/** Why each refused member is refused; `supported` are the registry's Tool kinds. */
export function toolRefusals(supported: readonly string[]): Record<string, string> {
  return {
    pythonFunction: 'pythonFunction is not supported by Baton: use jsFunction with jsCode.',
    mcpTool:
      'mcpTool cannot be created directly: MCP tools are managed through an MCP toolset (create a toolset with mcpToolset).',
    ...Object.fromEntries(
      REFUSED.map((kind) => [kind, `'${kind}' tools are not supported by Baton; supported: ${supported.join(', ')}.`]),
    ),
  };
}

/** The wire description of a refused Tool member, naming the supported kinds. */
export function toolsSupported(supported: readonly string[]): string {
  return `Baton supports ${wordList(supported, 'and', '')} tools.`;
}

/**
 * Tool resources: one of the registry's Tool kinds (the `tool_type` oneof) plus the settings
 * every tool has (executionType, timeout, toolFakeConfig, requireApproval).
 */
export function toolCollection(kinds: ToolKindRegistry): CollectionSpec {
  const supported = kinds.keys('tools');
  const refusals = toolRefusals(supported);
  return {
    collection: 'tools',
    singular: 'tool',
    codes: { notFound: 'tool_not_found', exists: 'tool_exists' },
    mask: {
      mutable: [...COMMON_SETTINGS, ...supported, ...Object.keys(refusals)],
      outputOnly: ['name', 'displayName', ...SERVER_STAMPS, 'generatedSummary'],
      unions: [[...supported, ...Object.keys(refusals)]],
    },
    filterFields: ['name', 'displayName', ...SERVER_STAMPS, ...COMMON_SETTINGS, ...supported],
    // A Tool's displayName is output only: the name of what it calls.
    derived(body): JsonObject {
      for (const kind of kinds.tools) {
        const member = asObject(body[kind.key]);
        const displayName = member && kind.displayName(member);
        if (displayName !== undefined) return { displayName };
      }
      return {};
    },
    async validate(context, body) {
      refuseUnsupported(body, refusals, 'tool');
      assertOneOf(body, supported, 'tool', { required: true, name: 'tool_type' });
      return checkKindBody(context, body, kinds, { collection: 'tools', singular: 'tool' });
    },
  };
}
