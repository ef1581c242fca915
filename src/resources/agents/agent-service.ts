import type { AgentRecord } from '../../domain/records.ts';
import { DuplicateKeyError, type Store } from '../../store/store.ts';
import { type Page, type PageRequest } from '../../domain/page.ts';
import type { Clock } from '../../domain/clock.ts';
import { buildAgentDefinition, type AgentInput } from './agent-definition.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { IdGenerator } from '../../domain/ids.ts';

/**
 * Agents: create, read, update (a new version each time, paused turns keep theirs), delete.
 * `validateModel` rejects model ids no provider can serve, at write time.
 */
export class AgentService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly newId: IdGenerator,
    private readonly validateModel: (modelId: string) => void,
  ) {}

  async create(appId: string, input: AgentInput): Promise<AgentRecord> {
    const definition = buildAgentDefinition(input, this.validateModel);
    const now = this.clock.now().toISOString();
    const agent: AgentRecord = {
      id: this.newId('agent'),
      appId,
      name: definition.name,
      version: 1,
      definition,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.store.agents.insert(agent);
    } catch (error) {
      if (error instanceof DuplicateKeyError) {
        throw new BatonError(
          'agent_exists',
          `An agent named '${definition.name}' already exists; update it with PUT /v1/agents/${definition.name}.`,
          {
            param: 'name',
          },
        );
      }
      throw error;
    }
    return agent;
  }

  async get(appId: string, name: string): Promise<AgentRecord> {
    const agent = await this.store.agents.get(appId, name);
    if (!agent) throw new BatonError('agent_not_found', `No agent named '${name}'. List agents with GET /v1/agents.`);
    return agent;
  }

  list(appId: string, page: PageRequest): Promise<Page<AgentRecord>> {
    return this.store.agents.list(appId, page);
  }

  /** Replaces the definition. With `expectedVersion`, refuses (409) if someone updated it meanwhile. */
  async replace(
    appId: string,
    name: string,
    input: Omit<AgentInput, 'name'>,
    expectedVersion?: number,
  ): Promise<AgentRecord> {
    const current = await this.get(appId, name);
    if (expectedVersion !== undefined && expectedVersion !== current.version) {
      throw new BatonError(
        'agent_version_mismatch',
        `Agent '${name}' is at version ${current.version}, not ${expectedVersion}; read it again and reapply your change.`,
      );
    }
    const definition = buildAgentDefinition({ ...input, name }, this.validateModel);
    const updated = await this.store.agents.update(
      appId,
      name,
      current.version,
      definition,
      this.clock.now().toISOString(),
    );
    if (!updated)
      throw new BatonError(
        'agent_version_mismatch',
        `Agent '${name}' was updated by another request at the same time; read it again and retry.`,
      );
    return updated;
  }

  /**
   * Creates the agent or, if its definition changed, writes a new version (config files at
   * start). Replicas starting together write the same file's agents at once: losing that race
   * (the agent appeared, or moved a version) is answered by reading it again.
   */
  async upsert(appId: string, input: AgentInput): Promise<AgentRecord> {
    const definition = buildAgentDefinition(input, this.validateModel);
    for (let attempt = 1; ; attempt++) {
      const current = await this.store.agents.get(appId, definition.name);
      if (current && JSON.stringify(current.definition) === JSON.stringify(definition)) return current;
      try {
        return current
          ? await this.replace(appId, definition.name, input, current.version)
          : await this.create(appId, input);
      } catch (error) {
        const lostRace =
          error instanceof BatonError && (error.code === 'agent_exists' || error.code === 'agent_version_mismatch');
        if (!lostRace || attempt >= 3) throw error;
      }
    }
  }

  /**
   * The implicit agent behind a bare `provider:model` (Responses `model`): no instructions, no
   * tools, defaults otherwise. Its name, `model:<id>`, cannot clash with a user's agent because
   * user agent names may not contain ':'.
   */
  async ensureModelAgent(appId: string, modelId: string): Promise<AgentRecord> {
    const name = `model:${modelId}`;
    const existing = await this.store.agents.get(appId, name);
    if (existing) return existing;
    const definition = { ...buildAgentDefinition({ name: 'implicit', model: modelId }, this.validateModel), name };
    const now = this.clock.now().toISOString();
    const agent: AgentRecord = {
      id: this.newId('agent'),
      appId,
      name,
      version: 1,
      definition,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.store.agents.insert(agent);
      return agent;
    } catch (error) {
      // Two first requests for the same model raced; the other one created it.
      const created = error instanceof DuplicateKeyError ? await this.store.agents.get(appId, name) : undefined;
      if (created) return created;
      throw error;
    }
  }

  async delete(appId: string, name: string): Promise<void> {
    if (!(await this.store.agents.delete(appId, name))) {
      throw new BatonError('agent_not_found', `No agent named '${name}'.`);
    }
  }
}
