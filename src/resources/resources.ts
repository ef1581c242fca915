import type { Principal } from '../domain/principal.ts';
import type { AppRecord } from '../domain/records.ts';
import type { Store } from '../store/store.ts';
import type { EgressPolicy } from '../tools/http/address-policy.ts';
import type { PageTokenCodec } from './aip/page-token.ts';
import type { AppPath } from './aip/resource-names.ts';
import { AgentResourceService } from './agents/agent-resource-service.ts';
import type { AgentService } from './agents/agent-service.ts';
import { AgentWriter } from './agents/agent-writes.ts';
import { AppResourceService } from './app-resources/app-resource-service.ts';
import { resolveApp } from './apps/app-access.ts';
import { AppService } from './apps/app-service.ts';
import { TenantService } from './apps/tenant-service.ts';
import { ApiKeyCache } from './keys/api-key-cache.ts';
import { KeyService } from './keys/key-service.ts';
import type { ServerKeys } from './keys/server-keys.ts';
import type { ResourceDependencies } from './resource-dependencies.ts';
import { SecretService } from './secrets/secret-service.ts';
import { readToolSecret } from './secrets/tool-secrets.ts';
import { TOOL_KINDS, type ToolKindRegistry } from './tool-kinds/registry.ts';
import { AppToolCatalog } from './tools/app-tool-catalog.ts';
import { AppToolProvider } from './tools/app-tool-provider.ts';
import { NO_SERVER_TOOLS, type ServerTools } from './tools/server-tools.ts';
import { DEFAULT_TOOL_SETTINGS, type ToolSettings } from './tools/tool-settings.ts';
import { ToolWorkers } from './tools/tool-workers.ts';
import { toolCollection } from './tools/tool-resource.ts';
import { toolRequestSchemas } from './tools/tool-schemas.ts';
import { ToolsetService } from './toolsets/toolset-service.ts';
import { WebhookService } from './webhooks/webhook-service.ts';

export interface ResourcesOptions {
  store: Store;
  keys: ServerKeys;
  /** Agent writes (validation, versions); the server builds it with the model registry's check. */
  agents: AgentService;
  /** Where server tools may connect (`egress.allow`). */
  egress: EgressPolicy;
  logger: { warn(details: object, message: string): void };
  /** Replaces the tools Baton runs itself (tests record calls); `:retrieveTools` is then unavailable. */
  serverTools?: ServerTools | undefined;
  /** The tool kinds; every kind Baton has unless a test adds one. */
  kinds?: ToolKindRegistry | undefined;
  /** Worker pools, timeout cap and OpenAPI limits (`tools:` in baton.yaml); defaults when absent. */
  tools?: ToolSettings | undefined;
}

/**
 * The app resources, built once by the server: apps and their keys, agents, tools, toolsets and
 * secrets, with every rule about them (validation, references, etags, masks, paging), and the
 * app's tools as the engine sees them. Faces call these; none of them reads the store.
 */
export class Resources {
  /** The AIP methods of each family (CES REST and the management MCP server call the same ones). */
  readonly apps: AppService;
  readonly agents: AgentResourceService;
  readonly tools: AppResourceService;
  readonly toolsets: ToolsetService;
  /** REST only: secret values must not travel through a model's context. */
  readonly secrets: SecretService;
  /** Baton's own agent definitions: the native `/v1/agents` API, config-file agents, implicit model agents. */
  readonly agentDefinitions: AgentService;
  /** The native admin API: apps as tenants. */
  readonly tenants: TenantService;
  /** API keys as records: create, list, revoke, rotate. */
  readonly keys: KeyService;
  /** Key lookup for authentication. */
  readonly apiKeys: ApiKeyCache;
  /** The engine's ToolProvider, which also names where each tool an agent may call comes from. */
  readonly toolCatalog: AppToolCatalog;
  readonly pageTokens: PageTokenCodec;
  /** The worker threads untrusted tool work runs in (sandbox, OpenAPI documents). */
  readonly workers: ToolWorkers;
  /** Webhook endpoints and their deliveries (an app admin's). */
  readonly webhooks: WebhookService;
  private readonly provider: AppToolProvider | null;

  constructor(private readonly options: ResourcesOptions) {
    const { store, keys, agents } = options;
    const kinds = options.kinds ?? TOOL_KINDS;
    const workers = new ToolWorkers(options.tools ?? DEFAULT_TOOL_SETTINGS);
    this.workers = workers;
    const provider = options.serverTools
      ? null
      : new AppToolProvider({
          store,
          kinds,
          policy: options.egress,
          readSecret: (appId, reference) => readToolSecret(store, keys, appId, reference),
          logger: options.logger,
          sandbox: workers.sandbox,
          openApi: workers.openApi,
          maxTimeoutSeconds: workers.settings.maxTimeoutSeconds,
        });
    this.provider = provider;
    this.apiKeys = new ApiKeyCache(store);
    const deps: ResourceDependencies = {
      store,
      agents,
      keys,
      kinds,
      keyCache: this.apiKeys,
      openApi: workers.openApi,
      logger: options.logger,
    };
    const writer = new AgentWriter(agents);
    this.apps = new AppService(deps);
    this.agents = new AgentResourceService(deps, writer);
    this.tools = new AppResourceService(toolCollection(kinds), toolRequestSchemas(kinds), deps, writer);
    this.toolsets = new ToolsetService(deps, writer, provider ?? undefined);
    this.secrets = new SecretService(deps);
    this.agentDefinitions = agents;
    this.tenants = new TenantService(store);
    this.keys = new KeyService(store, this.apiKeys);
    this.toolCatalog = new AppToolCatalog(store, options.serverTools ?? provider ?? NO_SERVER_TOOLS, kinds);
    this.pageTokens = keys.pageTokens;
    this.webhooks = new WebhookService(store, keys, options.egress);
  }

  /** `projects/{p}/locations/{l}/apps/{a}` as an app the caller may use, or NOT_FOUND. */
  resolveApp(principal: Principal, path: AppPath): Promise<AppRecord> {
    return resolveApp(this.options.store, principal, path.project, path.location, path.app);
  }

  /** Closes what the tool runtimes hold open (pooled MCP connections, worker threads), at shutdown. */
  async close(): Promise<void> {
    await Promise.all([this.provider?.close(), this.workers.close()]);
  }
}
