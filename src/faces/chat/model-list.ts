import type { AgentRecord, JsonObject } from '../../domain/records.ts';

/**
 * What `GET /v1/models` lists, in OpenAI's Model shape (`id`, `object`, `created`, `owned_by`,
 * plus Baton's own `baton` beside them): the app's agents, then the provider models its agents
 * run on. A provider's whole catalogue is not listed: any `provider:model` id the server's
 * providers serve works as `model`, and Baton cannot know them all without asking the provider.
 * Implicit agents (`model:<id>`, made by requests that named a provider model) count as their
 * provider model.
 */
export function modelList(agents: readonly AgentRecord[]): JsonObject[] {
  const named: JsonObject[] = [];
  const providerModels = new Map<string, number>();
  const seconds = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);
  for (const agent of agents) {
    const model = agent.definition.model;
    const created = seconds(agent.createdAt);
    providerModels.set(model, Math.min(providerModels.get(model) ?? created, created));
    // User agents' names cannot contain ':'; implicit ones always do.
    if (agent.name.includes(':')) continue;
    named.push({
      id: agent.name,
      object: 'model',
      created,
      owned_by: 'baton',
      baton: {
        kind: 'agent',
        model,
        version: agent.version,
        ...(agent.definition.description ? { description: agent.definition.description } : {}),
      },
    });
  }
  const models = [...providerModels]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, created]) => ({
      id,
      object: 'model',
      created,
      owned_by: id.slice(0, id.indexOf(':')),
      baton: { kind: 'provider_model' },
    }));
  return [...named, ...models];
}
