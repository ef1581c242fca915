import type { Principal } from '../../domain/principal.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { AgentWriter } from '../agents/agent-writes.ts';
import { AppResourceService } from '../app-resources/app-resource-service.ts';
import type { ResourceDependencies } from '../resource-dependencies.ts';
import type { ToolsetInspector } from '../tools/app-tool-provider.ts';
import { RetrieveToolsService, retrieveToolsRequestSchema } from './retrieve-tools.ts';
import { toolsetCollection } from './toolset-resource.ts';
import { toolsetRequestSchemas } from './toolset-schemas.ts';

/** The Toolset methods: the five standard ones, and `:retrieveTools`. */
export class ToolsetService extends AppResourceService {
  private readonly retrieval: RetrieveToolsService;
  /** The request message of `:retrieveTools`. */
  readonly retrieveToolsRequest = retrieveToolsRequestSchema;

  /** `inspector` is absent when a test double replaces the tools Baton runs. */
  constructor(deps: ResourceDependencies, writer: AgentWriter, inspector: ToolsetInspector | undefined) {
    super(toolsetCollection(deps.kinds), toolsetRequestSchemas(deps.kinds), deps, writer);
    this.retrieval = new RetrieveToolsService(deps.store, inspector);
  }

  /** RetrieveToolsRequest `{toolset, toolIds?}` → `{tools, snapshot?}`: the toolset's tools, from its source. */
  retrieveTools(principal: Principal, request: unknown): Promise<JsonObject> {
    return this.retrieval.retrieveTools(principal, request);
  }
}
