import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ClientToolDefinition } from '../../domain/records.ts';
import type { EngineContext } from '../engine-context.ts';

/** Agents read per page while looking a tool up among an app's agents. */
const AGENT_PAGE = 100;
/** Agents read at most while looking for one tool: a claim's check stays bounded on huge apps. */
const MAX_AGENTS_READ = 2_000;
/** How long a name found to be a worker tool is taken as one without asking again. */
const KNOWN_FOR_MS = 60_000;

/**
 * Refuses a claim that names a tool no worker can ever be offered: one the app has no tool of
 * (`unknown_worker_tool`), or a tool its client answers (`tool_not_for_workers`). A name is known
 * when a worker call of it was ever made (this covers a request's own worker tools) or when an
 * agent of the app has it, inline or through its tool resources. Names found are remembered for a
 * minute, so a worker fleet's claims cost one read each, not a tour of the agents.
 */
export class WorkerToolNames {
  private readonly known = new Map<string, number>();

  constructor(private readonly context: EngineContext) {}

  async check(appId: string, tools: readonly string[]): Promise<void> {
    for (const [index, name] of tools.entries()) {
      const key = `${appId}\u0000${name}`;
      if ((this.known.get(key) ?? 0) > Date.now()) continue;
      if (!(await this.context.store.ledger.hasWorkerCalls(appId, name))) {
        const tool = await this.findAmongAgents(appId, name);
        if (!tool) {
          throw new BatonError(
            'unknown_worker_tool',
            `tools[${index}]: the app has no tool named '${name}' for workers. Name tools its agents declare with ` +
              '"executor": "worker" (list them with GET /v1/agents).',
            { param: `tools[${index}]` },
          );
        }
        if (tool.executor !== 'worker') {
          throw new BatonError(
            'tool_not_for_workers',
            `tools[${index}]: tool '${name}' is answered by the client, not by workers. Mark it with ` +
              '"executor": "worker" (CES clientFunction: "executor": "WORKER") to offer its calls to workers.',
            { param: `tools[${index}]` },
          );
        }
      }
      if (this.known.size > 10_000) this.known.clear();
      this.known.set(key, Date.now() + KNOWN_FOR_MS);
    }
  }

  /** The tool named `name` among the app's agents (a worker one first), or undefined. */
  private async findAmongAgents(appId: string, name: string): Promise<ClientToolDefinition | undefined> {
    let found: ClientToolDefinition | undefined;
    let cursor: string | null = null;
    let read = 0;
    do {
      const page = await this.context.store.agents.list(appId, { limit: AGENT_PAGE, cursor });
      for (const agent of page.data) {
        const tools = [...agent.definition.tools, ...(await this.context.tools.listTools(appId, agent.definition))];
        for (const tool of tools) {
          if (tool.name !== name || tool.server || tool.system) continue;
          if (tool.executor === 'worker') return tool;
          found ??= tool;
        }
      }
      read += page.data.length;
      cursor = page.nextCursor;
    } while (cursor !== null && read < MAX_AGENTS_READ);
    return found;
  }
}
