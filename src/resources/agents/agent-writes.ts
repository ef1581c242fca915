import type { AgentInput } from './agent-definition.ts';
import type { AgentService } from './agent-service.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { AgentRecord } from '../../domain/records.ts';
import { concurrentUpdate } from '../aip/resource-writes.ts';

/**
 * Every agent write of the CES face goes through AgentService (validation, versions, compare-and-set
 * on `expectedVersion`), with its errors restated in CES terms.
 */
export class AgentWriter {
  constructor(private readonly agents: AgentService) {}

  async create(appId: string, input: AgentInput, resourceName: string): Promise<AgentRecord> {
    return this.translate(() => this.agents.create(appId, input), resourceName);
  }

  async replace(
    appId: string,
    name: string,
    input: Omit<AgentInput, 'name'>,
    expectedVersion: number,
    resourceName: string,
  ): Promise<AgentRecord> {
    return this.translate(() => this.agents.replace(appId, name, input, expectedVersion), resourceName);
  }

  async delete(appId: string, name: string, resourceName: string): Promise<void> {
    await this.translate(() => this.agents.delete(appId, name), resourceName);
  }

  /** AgentService speaks the native API (paths like PUT /v1/agents); say the same in CES terms. */
  private async translate<T>(write: () => Promise<T>, resourceName: string): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof BatonError)) throw error;
      switch (error.code) {
        case 'agent_exists':
          throw new BatonError(
            'agent_exists',
            `Agent '${resourceName}' already exists; choose another agentId or update it with PATCH /v1/${resourceName}.`,
            {
              param: 'agentId',
            },
          );
        case 'agent_not_found':
          throw new BatonError(
            'agent_not_found',
            `Agent '${resourceName}' was not found. List agents with GET /v1/${resourceName.replace(/\/[^/]+$/, '')}.`,
          );
        case 'agent_version_mismatch':
          throw concurrentUpdate(resourceName);
        case 'invalid_model':
          throw new BatonError('invalid_model', `agent.modelSettings.model: ${error.message}`, {
            param: 'agent.modelSettings.model',
          });
        case 'invalid_agent_name':
          throw new BatonError('invalid_resource_id', error.message, { param: 'agentId' });
        default:
          throw error;
      }
    }
  }
}
