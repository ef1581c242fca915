import type { AgentDefinition, TurnRecord } from '../domain/records.ts';
import type { Store } from '../store/store.ts';
import { BatonError } from '../domain/errors/baton-error.ts';

/** The agent version a turn pinned. Versions never change once written, so they are safe to keep in memory. */
export class AgentVersions {
  private readonly cache = new Map<string, AgentDefinition>();

  constructor(private readonly store: Store) {}

  async forTurn(turn: TurnRecord): Promise<AgentDefinition> {
    const key = `${turn.agentId}@${turn.agentVersion}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const version = await this.store.agents.getVersion(turn.agentId, turn.agentVersion);
    if (!version)
      throw new BatonError(
        'agent_version_missing',
        `Agent version ${turn.agentVersion} of turn '${turn.id}' is missing.`,
      );
    if (this.cache.size >= 1_000) this.cache.clear();
    this.cache.set(key, version.definition);
    return version.definition;
  }
}
