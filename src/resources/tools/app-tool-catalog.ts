import type { AgentDefinition, ClientToolDefinition } from '../../domain/records.ts';
import type { ServerCall, ServerCallResult, ToolProvider } from '../../engine/index.ts';
import type { Repositories } from '../../store/store.ts';
import { loadReferencedTools } from './client-function-definition.ts';
import type { ServerTools } from './server-tools.ts';

/**
 * The engine's view of an app's tools: the client functions an agent refers to (Tool resources,
 * and system tools by id), then the server tools of its tools and toolsets.
 */
export class AppToolCatalog implements ToolProvider {
  readonly fake?: (call: ServerCall) => Promise<ServerCallResult | null>;

  constructor(
    private readonly store: Pick<Repositories, 'resources'>,
    private readonly server: ServerTools,
  ) {
    const fake = server.fake?.bind(server);
    if (fake) this.fake = fake;
  }

  async listTools(appId: string, agent: AgentDefinition): Promise<ClientToolDefinition[]> {
    return [
      ...(await loadReferencedTools(this.store, appId, agent)),
      ...(await this.server.listServerTools(appId, agent)),
    ];
  }

  run(call: ServerCall): Promise<ServerCallResult> {
    return this.server.run(call);
  }
}
