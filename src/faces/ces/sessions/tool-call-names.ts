import type { AgentDefinition, AppRecord } from '../../../store/records.ts';
import type { Store } from '../../../store/store.ts';
import { appResourceName } from '../app-access.ts';

/** How a call of a function name is named on the wire: the Tool resource and its display name. */
export interface ToolIdentity {
  tool: string;
  displayName: string;
}

/**
 * Maps the function names the model calls to the Tool resources of the app they come from, so
 * `toolCalls[].tool` is a resource name the client can match (and must echo in its response).
 * A tool declared inline on a Baton agent has no resource; it is named `…/tools/{function name}`.
 */
export class ToolCallNames {
  private constructor(
    private readonly app: AppRecord,
    private readonly byFunction: Map<string, ToolIdentity>,
  ) {}

  static async load(store: Store, app: AppRecord, agent: AgentDefinition | undefined): Promise<ToolCallNames> {
    const byFunction = new Map<string, ToolIdentity>();
    const records = agent?.toolIds?.length ? await store.resources.getMany(app.id, 'tools', agent.toolIds) : [];
    for (const record of records) {
      const fn = record.body.clientFunction;
      if (fn && typeof fn === 'object' && !Array.isArray(fn) && typeof fn.name === 'string') {
        byFunction.set(fn.name, { tool: `${appResourceName(app)}/tools/${record.id}`, displayName: fn.name });
      }
    }
    return new ToolCallNames(app, byFunction);
  }

  identify(functionName: string): ToolIdentity {
    return this.byFunction.get(functionName) ?? { tool: `${appResourceName(this.app)}/tools/${functionName}`, displayName: functionName };
  }
}
