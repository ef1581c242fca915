import { BatonError } from '../../domain/errors/baton-error.ts';
import type { Principal } from '../../domain/principal.ts';
import type { AgentRecord, AppRecord, JsonObject } from '../../domain/records.ts';
import { resolveApp } from '../apps/app-access.ts';
import { applyFieldMask, parseFieldMask, type MaskSpec } from '../aip/field-mask.ts';
import { isCesAgent, listCesAgents } from './agent-references.ts';
import { agentEtag, agentInputFrom, renderAgent, type AgentRuleContext } from './agent-mapping.ts';
import {
  AGENT_EXTRA_FIELDS,
  createAgentRequestSchema,
  deleteAgentRequestSchema,
  getAgentRequestSchema,
  listAgentsRequestSchema,
  updateAgentRequestSchema,
} from './agent-schemas.ts';
import type { AgentWriter } from './agent-writes.ts';
import { listResponse } from '../aip/list-resources.ts';
import {
  childIdIn,
  chooseResourceId,
  formatAppName,
  formatChildName,
  parseAppName,
  parseChildName,
  type AppPath,
} from '../aip/resource-names.ts';
import type { ResourceDependencies } from '../resource-dependencies.ts';
import type { ResourceRequestSchemas } from '../app-resources/app-resource-service.ts';
import { assertFreshEtag, concurrentUpdate, nowIso } from '../aip/resource-writes.ts';
import { parseCesRequest } from '../aip/request-message.ts';
import { toJsonObject, withoutFields } from '../json-objects.ts';

const MASK: MaskSpec = {
  mutable: [
    'displayName',
    'description',
    'instruction',
    'modelSettings',
    'tools',
    'toolsets',
    'llmAgent',
    'remoteDialogflowAgent',
    ...AGENT_EXTRA_FIELDS,
  ],
  outputOnly: ['name', 'createTime', 'updateTime', 'etag', 'generatedSummary', 'validationErrors'],
  unions: [['llmAgent', 'remoteDialogflowAgent']],
};
const FILTER_FIELDS = [
  ...MASK.mutable.filter((field) => field !== 'remoteDialogflowAgent'),
  'name',
  'createTime',
  'updateTime',
  'etag',
];

/**
 * Agents of an app (CES AgentService *Agent methods) over Baton's AgentService: every write is a
 * new agent version, and paused turns keep the version they started with. Every method takes the
 * caller and the CES request message and returns the CES response message.
 */
export class AgentResourceService {
  /** The request message of each method (the MCP tools publish them as input schemas). */
  readonly requests: ResourceRequestSchemas = {
    create: createAgentRequestSchema,
    get: getAgentRequestSchema,
    list: listAgentsRequestSchema,
    update: updateAgentRequestSchema,
    delete: deleteAgentRequestSchema,
  };

  constructor(
    private readonly deps: ResourceDependencies,
    private readonly writer: AgentWriter,
  ) {}

  private async context(principal: Principal, path: AppPath): Promise<AgentRuleContext> {
    const app = await resolveApp(this.deps.store, principal, path.project, path.location, path.app);
    return { store: this.deps.store, app, path, kinds: this.deps.kinds, openApi: this.deps.openApi };
  }

  private async load(context: AgentRuleContext, id: string): Promise<AgentRecord> {
    const agent = await this.deps.store.agents.get(context.app.id, id);
    if (!agent || !isCesAgent(agent)) {
      throw new BatonError(
        'agent_not_found',
        `Agent '${formatChildName(context.path, 'agents', id)}' was not found. List agents with GET /v1/${formatAppName(context.path)}/agents.`,
      );
    }
    return agent;
  }

  /** CreateAgentRequest `{parent, agentId?, agent}` → Agent. */
  async create(principal: Principal, request: unknown): Promise<JsonObject> {
    const { parent, agentId, agent } = parseCesRequest(createAgentRequestSchema, request);
    const path = parseAppName(parent, 'parent');
    const context = await this.context(principal, path);
    const id = chooseResourceId(agentId, 'agentId', 'agent');
    const input = await agentInputFrom(context, withoutFields(toJsonObject(agent), MASK.outputOnly), undefined);
    const created = await this.writer.create(
      context.app.id,
      { ...input, name: id },
      formatChildName(path, 'agents', id),
    );
    return renderAgent(created, path);
  }

  /** GetAgentRequest `{name}` → Agent. */
  async get(principal: Principal, request: unknown): Promise<JsonObject> {
    const path = parseChildName(parseCesRequest(getAgentRequestSchema, request).name, 'agents', 'name');
    const context = await this.context(principal, path);
    return renderAgent(await this.load(context, path.id), path);
  }

  /** ListAgentsRequest → `{agents, nextPageToken?}` (implicit model agents are not listed). */
  async list(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = parseCesRequest(listAgentsRequestSchema, request);
    const path = parseAppName(parsed.parent, 'parent');
    const context = await this.context(principal, path);
    const agents = (await listCesAgents(this.deps.store, context.app.id)).map((agent) => renderAgent(agent, path));
    return listResponse('agents', agents, parsed, { fields: FILTER_FIELDS, codec: this.deps.keys.pageTokens });
  }

  /** UpdateAgentRequest `{agent, updateMask?}` → Agent. An absent mask replaces every CES field; Baton-only settings stay. */
  async update(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = parseCesRequest(updateAgentRequestSchema, request);
    const patch = toJsonObject(parsed.agent);
    const path = parseChildName(patch.name, 'agents', 'agent.name');
    const context = await this.context(principal, path);
    const current = await this.load(context, path.id);
    const name = formatChildName(path, 'agents', path.id);
    assertFreshEtag(parsed.agent.etag, agentEtag(current), name, 'agent.etag');
    const currentBody = withoutFields(renderAgent(current, path), MASK.outputOnly);
    const merged = applyFieldMask(
      currentBody,
      withoutFields(patch, MASK.outputOnly),
      parseFieldMask(parsed.updateMask),
      MASK,
    ) as JsonObject;
    const input = await agentInputFrom(context, merged, current.definition);
    // The version read above is the compare-and-set token: a write in between is ABORTED.
    const updated = await this.writer.replace(context.app.id, path.id, input, current.version, name);
    return renderAgent(updated, path);
  }

  /**
   * DeleteAgentRequest `{name, force?, etag?}` → Empty. Refused while the app's rootAgent or
   * another agent's childAgents names it, unless `force`, which clears those references first.
   */
  async delete(principal: Principal, request: unknown): Promise<JsonObject> {
    const { name, force, etag } = parseCesRequest(deleteAgentRequestSchema, request);
    const path = parseChildName(name, 'agents', 'name');
    const context = await this.context(principal, path);
    const agent = await this.load(context, path.id);
    const fullName = formatChildName(path, 'agents', path.id);
    assertFreshEtag(etag, agentEtag(agent), fullName, 'etag');
    const isRoot = childIdIn(path, 'agents', context.app.settings.rootAgent) === path.id;
    const parents = (await listCesAgents(this.deps.store, context.app.id)).filter(
      (other) => other.name !== path.id && childAgentIds(path, other).includes(path.id),
    );
    if ((isRoot || parents.length > 0) && force !== true) {
      const referrers = [
        ...(isRoot ? [`${formatAppName(path)} (rootAgent)`] : []),
        ...parents.map((other) => `${formatChildName(path, 'agents', other.name)} (childAgents)`),
      ];
      throw new BatonError(
        'agent_in_use',
        `Agent '${fullName}' is referred to by ${referrers.join(', ')}. Change those references first, or delete with force=true, which clears them.`,
        { details: { referrers } },
      );
    }
    if (isRoot) await this.clearRootAgent(context.app, fullName);
    for (const parent of parents) await this.removeChild(context, parent, path.id);
    await this.writer.delete(context.app.id, path.id, fullName);
    return {};
  }

  private async clearRootAgent(app: AppRecord, agentName: string): Promise<void> {
    const { rootAgent: _rootAgent, ...settings } = app.settings;
    const updated = await this.deps.store.apps.updateSettings(app.id, app.revision, settings, nowIso());
    if (!updated) throw concurrentUpdate(`${agentName}'s app`);
  }

  private async removeChild(context: AgentRuleContext, parent: AgentRecord, childId: string): Promise<void> {
    const extras = { ...parent.definition.extras };
    extras.childAgents = (Array.isArray(extras.childAgents) ? extras.childAgents : []).filter(
      (name) => childIdIn(context.path, 'agents', name) !== childId,
    );
    const { name: _name, ...input } = parent.definition;
    await this.writer.replace(
      context.app.id,
      parent.name,
      { ...input, extras },
      parent.version,
      formatChildName(context.path, 'agents', parent.name),
    );
  }
}

function childAgentIds(path: AppPath, agent: AgentRecord): string[] {
  const names = agent.definition.extras?.childAgents;
  return (Array.isArray(names) ? names : []).flatMap((name) => childIdIn(path, 'agents', name) ?? []);
}
