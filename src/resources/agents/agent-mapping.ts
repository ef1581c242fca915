import { checkProviderOptions } from './provider-options.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ErrorCode } from '../../domain/errors/error-catalogue.ts';
import { SYSTEM_TOOLS } from '../../engine/index.ts';
import type { AgentInput } from './agent-definition.ts';
import type { AgentDefinition, AgentRecord, JsonObject, ToolsetReference } from '../../domain/records.ts';
import { computeEtag } from '../aip/etag.ts';
import { assertOneOf } from '../aip/union-check.ts';
import { AGENT_EXTRA_FIELDS } from './agent-schemas.ts';
import { refuseUnsupported, requireText, type RuleContext } from '../tools/common-rules.ts';
import { childIdIn, formatAppName, formatChildName, type AppPath } from '../aip/resource-names.ts';
import { asObject } from '../json-objects.ts';
import type { ToolKindRegistry } from '../tool-kinds/registry.ts';

/**
 * A CES Agent is a Baton agent: the agent id is the Baton agent name, `instruction` is
 * `instructions`, `modelSettings.model` is `model`, `tools` / `toolsets` are `toolIds` /
 * `toolsets`. Fields Baton does not act on yet (child agents, callbacks, guardrails, transfer
 * rules) live in `extras` and come back unchanged.
 */

export const DEFAULT_MODEL = 'scripted:auto';

/** The app an agent body belongs to, and the tool kinds that tell which of its tools the client runs. */
export interface AgentRuleContext extends RuleContext {
  kinds: ToolKindRegistry;
}

/** The definition fields a CES write sets; every other field (maxSteps, inline tools, …) is Baton's own and kept. */
const CES_MANAGED = [
  'description',
  'instructions',
  'model',
  'temperature',
  'providerOptions',
  'displayName',
  'toolIds',
  'toolsets',
  'extras',
] as const;

export function agentEtag(agent: AgentRecord): string {
  return computeEtag([agent.id, agent.version]);
}

export function renderAgent(agent: AgentRecord, path: AppPath): JsonObject {
  const definition = agent.definition;
  const toolIds = definition.toolIds ?? [];
  const toolsets = definition.toolsets ?? [];
  return {
    name: formatChildName(path, 'agents', agent.name),
    displayName: definition.displayName ?? agent.name,
    ...(definition.description ? { description: definition.description } : {}),
    ...(definition.instructions ? { instruction: definition.instructions } : {}),
    modelSettings: {
      model: definition.model,
      ...(definition.temperature === undefined ? {} : { temperature: definition.temperature }),
      // Baton's extension: options passed to the model's provider (docs/provider-options.md).
      ...(definition.providerOptions === undefined ? {} : { providerOptions: definition.providerOptions }),
    },
    ...(toolIds.length > 0 ? { tools: toolIds.map((id) => formatChildName(path, 'tools', id)) } : {}),
    ...(toolsets.length > 0
      ? {
          toolsets: toolsets.map((entry) => ({
            toolset: formatChildName(path, 'toolsets', entry.toolsetId),
            ...(entry.toolIds.length > 0 ? { toolIds: entry.toolIds } : {}),
          })),
        }
      : {}),
    llmAgent: {},
    ...(definition.extras ?? {}),
    createTime: agent.createdAt,
    updateTime: agent.updatedAt,
    etag: agentEtag(agent),
  };
}

function invalid(field: string, message: string, code: ErrorCode = 'invalid_reference'): never {
  throw new BatonError(code, message, { param: field });
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

/** `agent.tools`: tools of this app that exist; client functions among them must not share a name. */
async function readToolIds(context: AgentRuleContext, names: string[]): Promise<string[]> {
  const ids = names.map((name, index) => {
    const id = childIdIn(context.path, 'tools', name);
    if (id === undefined)
      invalid(
        `agent.tools[${index}]`,
        `agent.tools[${index}] must be the name of a tool of this app: ${formatAppName(context.path)}/tools/{tool}.`,
      );
    if (names.indexOf(name) !== index) invalid(`agent.tools[${index}]`, `agent.tools[${index}] repeats '${name}'.`);
    return id;
  });
  const records = await context.store.resources.getMany(context.app.id, 'tools', ids);
  const functionNames = new Map<string, string>();
  for (const [index, id] of ids.entries()) {
    const record = records.find((candidate) => candidate.id === id);
    // System tools (`…/tools/end_session`) exist in every app, as in CES; Baton runs them itself.
    if (!record && id !== undefined && SYSTEM_TOOLS[id]) continue;
    if (!record)
      invalid(
        `agent.tools[${index}]`,
        `agent.tools[${index}] refers to tool '${names[index]}', which does not exist; create it first.`,
      );
    const fn = context.kinds.clientDefinition(record)?.name;
    if (fn === undefined) continue;
    // The model tells tools apart by function name only: two tools answering to one name would be a coin toss.
    const other = functionNames.get(fn);
    if (other !== undefined)
      invalid(
        `agent.tools[${index}]`,
        `agent.tools[${index}] and ${other} are both client functions named '${fn}'; an agent's tools need distinct names.`,
      );
    functionNames.set(fn, `agent.tools[${index}]`);
  }
  return ids;
}

async function readToolsets(context: RuleContext, entries: unknown[]): Promise<ToolsetReference[]> {
  const references: ToolsetReference[] = [];
  for (const [index, entry] of entries.entries()) {
    const field = `agent.toolsets[${index}]`;
    const object = asObject(entry as JsonObject) ?? {};
    const name = requireText(object, 'toolset', field);
    const toolsetId = childIdIn(context.path, 'toolsets', name);
    if (toolsetId === undefined)
      invalid(
        `${field}.toolset`,
        `${field}.toolset must be the name of a toolset of this app: ${formatAppName(context.path)}/toolsets/{toolset}.`,
      );
    if (references.some((reference) => reference.toolsetId === toolsetId))
      invalid(`${field}.toolset`, `${field}.toolset repeats '${name}'.`);
    if (!(await context.store.resources.get(context.app.id, 'toolsets', toolsetId))) {
      invalid(
        `${field}.toolset`,
        `${field}.toolset refers to toolset '${name}', which does not exist; create it first.`,
      );
    }
    references.push({ toolsetId, toolIds: stringList(object.toolIds) });
  }
  return references;
}

function readExtras(context: RuleContext, body: JsonObject): JsonObject | undefined {
  const extras: JsonObject = {};
  for (const field of AGENT_EXTRA_FIELDS) if (body[field] !== undefined) extras[field] = body[field];
  stringList(extras.childAgents).forEach((name, index) => {
    if (childIdIn(context.path, 'agents', name) === undefined) {
      invalid(
        `agent.childAgents[${index}]`,
        `agent.childAgents[${index}] must be the name of an agent of this app: ${formatAppName(context.path)}/agents/{agent}.`,
      );
    }
  });
  return Object.keys(extras).length > 0 ? extras : undefined;
}

/**
 * Checks a complete CES Agent body (after any update mask) and turns it into AgentService input.
 * `existing` is the current definition on update: its Baton-only settings are carried over.
 */
export async function agentInputFrom(
  context: AgentRuleContext,
  body: JsonObject,
  existing: AgentDefinition | undefined,
): Promise<Omit<AgentInput, 'name'>> {
  refuseUnsupported(
    body,
    {
      remoteDialogflowAgent:
        'agent.remoteDialogflowAgent is not supported by Baton (Dialogflow CX is a Google Cloud service); use llmAgent.',
    },
    'agent',
  );
  assertOneOf(body, ['llmAgent', 'remoteDialogflowAgent'], 'agent', { required: false, name: 'agent_type' });
  const displayName = requireText(body, 'displayName', 'agent');
  const modelSettings = asObject(body.modelSettings) ?? {};
  const temperature = modelSettings.temperature;
  if (typeof temperature === 'number' && !(temperature >= 0 && temperature <= 2)) {
    invalid(
      'agent.modelSettings.temperature',
      'agent.modelSettings.temperature must be between 0 and 2.',
      'invalid_field',
    );
  }
  const appModel = asObject(context.app.settings.modelSettings)?.model;
  const model =
    typeof modelSettings.model === 'string' && modelSettings.model !== ''
      ? modelSettings.model
      : typeof appModel === 'string' && appModel !== ''
        ? appModel
        : DEFAULT_MODEL;

  const kept: Partial<AgentDefinition> = { ...existing };
  delete kept.name;
  for (const field of CES_MANAGED) delete kept[field];
  const input: Omit<AgentInput, 'name'> = {
    ...kept,
    model,
    displayName,
    instructions: typeof body.instruction === 'string' ? body.instruction : '',
  };
  if (typeof body.description === 'string' && body.description !== '') input.description = body.description;
  if (typeof temperature === 'number') input.temperature = temperature;
  if (modelSettings.providerOptions !== undefined)
    input.providerOptions = checkProviderOptions(modelSettings.providerOptions, 'agent.modelSettings.providerOptions');
  const toolIds = await readToolIds(context, stringList(body.tools));
  if (toolIds.length > 0) input.toolIds = toolIds;
  const toolsets = await readToolsets(context, Array.isArray(body.toolsets) ? body.toolsets : []);
  if (toolsets.length > 0) input.toolsets = toolsets;
  const extras = readExtras(context, body);
  if (extras) input.extras = extras;
  return input;
}
