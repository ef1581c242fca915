import { BatonError } from '../../domain/errors/baton-error.ts';
import { toJsonSchema } from './client-function-definition.ts';
import { assertValidToolDefinition } from '../../engine/index.ts';
import type { JsonObject } from '../../domain/records.ts';
import { assertOneOf } from '../aip/union-check.ts';
import type { ResourceKind } from '../app-resources/app-resource-crud.ts';
import {
  checkDuration,
  checkOpenApiSource,
  checkRequireApproval,
  checkToolFakeConfig,
  refuseUnsupported,
  requireText,
} from './common-rules.ts';
import { RESOURCE_ID_PATTERN } from '../aip/resource-names.ts';
import { asObject } from '../aip/service-support.ts';

const SUPPORTED = ['clientFunction', 'openApiTool', 'jsFunction'];
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

const refusals: Record<string, string> = {
  pythonFunction: 'pythonFunction is not supported by Baton: use jsFunction with jsCode.',
  mcpTool:
    'mcpTool cannot be created directly: MCP tools are managed through an MCP toolset (create a toolset with mcpToolset).',
  ...Object.fromEntries(
    REFUSED.map((kind) => [
      kind,
      `'${kind}' tools are not supported by Baton; supported: clientFunction, openApiTool, jsFunction.`,
    ]),
  ),
};

/**
 * A function's name and parameters, checked with the engine's own rules for client tools (the
 * name pattern, an object schema that compiles), after turning a CES Schema into JSON Schema the
 * way the turn runner will.
 */
function checkFunction(fn: JsonObject, prefix: string): void {
  const name = requireText(fn, 'name', prefix);
  if (!RESOURCE_ID_PATTERN.test(name)) {
    throw new BatonError(
      'invalid_tool_name',
      `${prefix}.name '${name.slice(0, 100)}' must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, '_' and '-').`,
      {
        param: `${prefix}.name`,
      },
    );
  }
  const parameters = asObject(fn.parameters);
  try {
    assertValidToolDefinition(
      { name, description: '', parameters: parameters ? toJsonSchema(parameters) : { type: 'object', properties: {} } },
      prefix,
    );
  } catch (error) {
    if (error instanceof BatonError)
      throw new BatonError('invalid_tool_parameters', error.message, {
        param: error.param ?? `${prefix}.parameters`,
      });
    throw error;
  }
}

/** A Tool's displayName is output only: the name of what it calls. */
function displayNameOf(body: JsonObject): string | undefined {
  for (const kind of SUPPORTED) {
    const name = asObject(body[kind])?.name;
    if (typeof name === 'string') return name;
  }
  return body.openApiTool !== undefined ? 'openapi_tool' : undefined;
}

export const toolKind: ResourceKind = {
  collection: 'tools',
  singular: 'tool',
  codes: { notFound: 'tool_not_found', exists: 'tool_exists' },
  mask: {
    mutable: ['executionType', 'timeout', 'toolFakeConfig', 'requireApproval', ...SUPPORTED, ...Object.keys(refusals)],
    outputOnly: ['name', 'displayName', 'createTime', 'updateTime', 'etag', 'generatedSummary'],
    unions: [[...SUPPORTED, ...Object.keys(refusals)]],
  },
  filterFields: [
    'name',
    'displayName',
    'createTime',
    'updateTime',
    'etag',
    'executionType',
    'timeout',
    'toolFakeConfig',
    'requireApproval',
    ...SUPPORTED,
  ],
  derived(body): JsonObject {
    const displayName = displayNameOf(body);
    return displayName === undefined ? {} : { displayName };
  },
  async validate(context, body) {
    refuseUnsupported(body, refusals, 'tool');
    assertOneOf(body, SUPPORTED, 'tool', { required: true, name: 'tool_type' });
    checkDuration(body.timeout, 'tool.timeout');
    checkToolFakeConfig(body.toolFakeConfig, 'tool.toolFakeConfig');
    checkRequireApproval(body, 'tool.requireApproval');
    const clientFunction = asObject(body.clientFunction);
    if (clientFunction) checkFunction(clientFunction, 'tool.clientFunction');
    const jsFunction = asObject(body.jsFunction);
    if (jsFunction) {
      checkFunction(jsFunction, 'tool.jsFunction');
      requireText(jsFunction, 'jsCode', 'tool.jsFunction');
    }
    const openApi = asObject(body.openApiTool);
    if (openApi) {
      await checkOpenApiSource(context, openApi, 'tool.openApiTool');
    }
    return body;
  },
};
