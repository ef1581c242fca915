import type { Resources } from '../../resources/index.ts';
import { acceptProtoFieldNames } from '../ces/proto-field-names.ts';
import { familyTools, type ResourceFamily } from './management-tools.ts';
import type { McpTool } from './mcp-tool.ts';

const APP = '`projects/{project}/locations/{location}/apps/{app}`';
const SECRETS =
  'Credentials are never pasted: `apiKeySecretVersion` and `clientSecretVersion` name a secret ' +
  'of the app (`…/apps/{app}/secrets/{id}`, created over REST; a Secret Manager name ' +
  '`projects/{project}/secrets/{id}/versions/{version}` is read as the app secret `{id}`), and a bearer ' +
  'token is `$context.variables.NAME`.';

/**
 * A family's tools reading arguments as CES's MCP server does: proto field names (`display_name`,
 * `update_mask=display_name`) are read as their JSON names, errors name fields as written.
 */
function cesFamilyTools(family: ResourceFamily): McpTool[] {
  return familyTools(family).map((tool) => ({
    ...tool,
    acceptArguments(args) {
      const accepted = acceptProtoFieldNames(tool.inputSchema, args, {
        fieldMasks: { updateMask: family.singular },
      });
      return {
        args: accepted.message as Record<string, unknown>,
        inCallerSpelling: (error) => accepted.inClientSpelling(error),
      };
    },
  }));
}

/**
 * The management tools of the CES MCP server, as CES names them: create_/get_/list_/update_/
 * delete_ for apps, agents, tools and toolsets, each backed by the same service method as REST.
 */
export function cesManagementTools(services: Pick<Resources, 'apps' | 'agents' | 'tools' | 'toolsets'>): McpTool[] {
  return [
    ...cesFamilyTools({
      singular: 'app',
      plural: 'apps',
      about:
        'An app holds agents, tools, toolsets, secrets and conversations; `rootAgent` is the agent new sessions talk to.',
      parent: '`projects/{project}/locations/{location}` (the project of your API key; creating needs an operator key)',
      createHint:
        '`app.displayName` is required. The result is a finished long-running operation whose `response` is the app.',
      service: services.apps,
      requests: services.apps.requests,
      lifecycle: 'operate',
    }),
    ...cesFamilyTools({
      singular: 'agent',
      plural: 'agents',
      about:
        'An agent has an `instruction`, `modelSettings.model` (e.g. "scripted:auto" or "openai:gpt-4o-mini"), ' +
        'the app tools it may call (`tools`: tool resource names) and toolsets (`toolsets`: {toolset, ' +
        'toolIds}).',
      parent: `the app, ${APP}`,
      createHint:
        '`agent.displayName` is required; tools and toolsets must already exist in the app (the system tool `…/tools/end_session` always does).',
      service: services.agents,
      requests: services.agents.requests,
    }),
    ...cesFamilyTools({
      singular: 'tool',
      plural: 'tools',
      about:
        'A tool is exactly one of `clientFunction` (run by the client application: the session pauses ' +
        'until it sends the result), `openApiTool` or `jsFunction` (sandboxed JavaScript); `executionType` ' +
        'ASYNCHRONOUS lets the session go on while a client function runs.',
      parent: `the app, ${APP}`,
      createHint:
        `A clientFunction needs \`name\` (letters, digits, '_' and '-') and usually \`description\` ` +
        `and \`parameters\` (a JSON Schema or CES Schema object). ${SECRETS}`,
      service: services.tools,
      requests: services.tools.requests,
    }),
    ...cesFamilyTools({
      singular: 'toolset',
      plural: 'toolsets',
      about:
        'A toolset is a group of tools served by one source: exactly one of `mcpToolset` (an MCP server ' +
        'over Streamable HTTP) or `openApiToolset` (an OpenAPI 3 document).',
      parent: `the app, ${APP}`,
      createHint:
        `\`toolset.displayName\` must be unique in the app. An mcpToolset needs \`serverAddress\` (e.g. ` +
        `"https://example.com/mcp/"); an openApiToolset needs \`openApiSchema\` (the document as JSON ` +
        `or YAML text). ${SECRETS}`,
      service: services.toolsets,
      requests: services.toolsets.requests,
    }),
  ];
}
