import { BatonError } from '../../domain/errors/baton-error.ts';
import type { AgentInput } from './agent-definition.ts';
import type { AgentDefinition, AgentRecord, AppRecord } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import type { AgentWriter } from './agent-writes.ts';
import { formatChildName, type AppPath } from '../aip/resource-names.ts';

/**
 * Agents as the CES face sees them, and their references to tools and toolsets: who refers to a
 * resource being deleted, and how `force` removes those references (a new agent version each).
 */

/** Implicit model agents (`model:openai:gpt-4o`) are Baton plumbing, not CES agents. */
export function isCesAgent(agent: Pick<AgentRecord, 'name'>): boolean {
  return !agent.name.includes(':');
}

/** Every CES-visible agent of the app (apps hold few; the store pages by name). */
export async function listCesAgents(store: Store, appId: string): Promise<AgentRecord[]> {
  const agents: AgentRecord[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.agents.list(appId, { limit: 500, cursor });
    agents.push(...page.data.filter(isCesAgent));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return agents;
}

export type ReferencedCollection = 'tools' | 'toolsets';

export function refersTo(definition: AgentDefinition, collection: ReferencedCollection, id: string): boolean {
  if (collection === 'tools') return (definition.toolIds ?? []).includes(id);
  return (definition.toolsets ?? []).some((reference) => reference.toolsetId === id);
}

/** The agent's settings as AgentService input, with every reference to the resource removed. */
export function withoutReference(
  definition: AgentDefinition,
  collection: ReferencedCollection,
  id: string,
): Omit<AgentInput, 'name'> {
  const { name: _name, ...input } = definition;
  if (collection === 'tools') input.toolIds = (definition.toolIds ?? []).filter((toolId) => toolId !== id);
  else input.toolsets = (definition.toolsets ?? []).filter((reference) => reference.toolsetId !== id);
  return input;
}

/**
 * Before deleting a tool or toolset: without `force`, FAILED_PRECONDITION naming the agents that
 * use it (a delete must not leave agents pointing at nothing); with `force`, those references are
 * removed first, each with the agent's version as compare-and-set so a concurrent edit is ABORTED.
 */
export async function releaseAgentReferences(
  store: Store,
  writer: AgentWriter,
  app: AppRecord,
  path: AppPath,
  target: { collection: ReferencedCollection; id: string; name: string; force: boolean },
): Promise<void> {
  const referrers = (await listCesAgents(store, app.id)).filter((agent) =>
    refersTo(agent.definition, target.collection, target.id),
  );
  if (referrers.length === 0) return;
  const names = referrers.map((agent) => formatChildName(path, 'agents', agent.name));
  if (!target.force) {
    const field = target.collection === 'tools' ? 'tools' : 'toolsets';
    throw new BatonError(
      'resource_in_use',
      `'${target.name}' is used by ${names.length === 1 ? 'agent' : 'agents'} ${names.join(', ')}. ` +
        `Remove it from their ${field} first, or delete with force=true, which removes those references.`,
      { details: { referrers: names } },
    );
  }
  for (const [index, agent] of referrers.entries()) {
    await writer.replace(
      app.id,
      agent.name,
      withoutReference(agent.definition, target.collection, target.id),
      agent.version,
      names[index]!,
    );
  }
}
