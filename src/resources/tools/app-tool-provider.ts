import { DURATION_RANGES } from '../../domain/duration-ranges.ts';
import type { AgentDefinition, AppResourceRecord, ClientToolDefinition } from '../../domain/records.ts';
import type { ServerCall, ServerCallResult } from '../../engine/index.ts';
import type { Store } from '../../store/store.ts';
import { AuthError } from '../../tools/auth/auth-error.ts';
import type { EgressPolicy } from '../../tools/http/address-policy.ts';
import type { OpenApiCompiler } from '../../tools/openapi/openapi-pool.ts';
import { SandboxError } from '../../tools/sandbox/sandbox-error.ts';
import { WorkerPoolError } from '../../tools/workers/worker-pool-error.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { SandboxRunner } from '../../tools/sandbox/sandbox-runner.ts';
import type { ToolKindRegistry } from '../tool-kinds/registry.ts';
import type { ToolsetInspection } from '../tool-kinds/tool-kind.ts';
import { createToolRuntime, type ToolRuntime } from '../tool-kinds/tool-runtime.ts';
import type { CallEnvironment } from './call-environment.ts';
import { storedDurationSeconds } from './duration.ts';
import type { ServerTools } from './server-tools.ts';
import { runToolFake } from './tool-fakes.ts';
import { textResult } from './tool-results.ts';

export interface AppToolProviderOptions {
  store: Store;
  kinds: ToolKindRegistry;
  /** Where outbound calls may go (`egress.allow`); everything private is refused otherwise. */
  policy: EgressPolicy;
  /** Resolves a secret resource name of an app to its value (the encrypted secret store). */
  readSecret(appId: string, reference: string): Promise<string>;
  logger: { warn(details: object, message: string): void };
  /** Where jsFunction code and fakes run (the sandbox workers). */
  sandbox: SandboxRunner;
  /** Reads OpenAPI documents (the OpenAPI workers). */
  openApi: OpenApiCompiler;
  /** `tools.max_timeout_seconds`: no server tool's timeout is longer. */
  maxTimeoutSeconds: number;
}

const DEFAULT_TIMEOUT_SECONDS = 30;

/** What `:retrieveTools` needs: a toolset's tools, asked of its source now. */
export interface ToolsetInspector {
  /** Throws a BatonError naming `toolsetName` when the source cannot be read and no snapshot stands in. */
  inspectToolset(record: AppResourceRecord, toolsetName: string): Promise<ToolsetInspection>;
}

/**
 * Settings a Tool or Toolset body gives each of its server tools, whatever its kind: timeout,
 * approval and idempotence. The timeout is clamped to the operator's cap (`tools.max_timeout_seconds`) here, at
 * run time rather than when the resource is written, so lowering the cap applies to tools already
 * stored; the engine's deadline for the call and the executor's budget both follow from it.
 */
function commonSettings(record: AppResourceRecord, maxTimeoutSeconds: number): Partial<ClientToolDefinition> {
  const settings: Partial<ClientToolDefinition> = {};
  const timeout = storedDurationSeconds(record.body.timeout, DURATION_RANGES.serverToolRun);
  if (timeout !== undefined && timeout > 0) settings.timeoutSeconds = Math.min(timeout, maxTimeoutSeconds);
  if (record.body.requireApproval === true) settings.requireApproval = true;
  if (record.body.idempotent === true) settings.idempotent = true;
  return settings;
}

/**
 * The server-executed tools of an app's agents, built from its Tools and Toolsets (whole or
 * narrowed to tool ids) by the kinds of the tool-kind registry, over the tool runtimes. Compiled
 * forms are cached per resource revision, so an edit applies from the next turn.
 */
export class AppToolProvider implements ServerTools, ToolsetInspector {
  private readonly runtime: ToolRuntime;

  constructor(private readonly options: AppToolProviderOptions) {
    this.runtime = createToolRuntime(options.store, () => options.policy, options.logger, options);
  }

  async listServerTools(appId: string, agent: AgentDefinition): Promise<ClientToolDefinition[]> {
    const { store } = this.options;
    const found: ClientToolDefinition[] = [];
    const tools = agent.toolIds?.length ? await store.resources.getMany(appId, 'tools', agent.toolIds) : [];
    for (const record of tools) found.push(...(await this.definitions(record)));
    for (const reference of agent.toolsets ?? []) {
      const record = await store.resources.get(appId, 'toolsets', reference.toolsetId);
      if (!record) continue;
      const wanted = reference.toolIds?.length ? new Set(reference.toolIds) : undefined;
      const definitions = await this.definitions(record);
      found.push(
        ...definitions.filter((tool) => !wanted || wanted.has(tool.name) || wanted.has(tool.server?.toolName ?? '')),
      );
    }
    return uniqueByName(found, (name) =>
      this.options.logger.warn(
        { app_id: appId, agent: agent.name, tool: name },
        'two server tools of the agent share a name; the first is used',
      ),
    );
  }

  async run(call: ServerCall): Promise<ServerCallResult> {
    const source = call.tool.server;
    if (!source) return textResult(`Tool '${call.tool.name}' is not a server tool.`, true);
    const record = await this.options.store.resources.get(call.appId, source.collection, source.resourceId);
    if (!record)
      return textResult(
        `Tool '${call.tool.name}' was removed from the app (${source.collection}/${source.resourceId}); it cannot run.`,
        true,
      );
    const environment = await this.environment(call);
    if (call.useFakes) {
      const faked = await runToolFake(record, source.toolName ?? record.id, call, environment, this.runtime.sandbox);
      if (faked) return faked;
    }
    const found = this.options.kinds.kindOf(record);
    if (found?.kind.executor !== 'server')
      return textResult(
        `Tool '${call.tool.name}' (${record.collection}/${record.id}) is not a kind Baton executes.`,
        true,
      );
    try {
      const prefix = `${record.collection === 'tools' ? 'tool' : 'toolset'}.${found.kind.key}`;
      return await found.kind.run({ ...found, toolName: source.toolName, prefix, call, environment }, this.runtime);
    } catch (error) {
      // Credentials that cannot be had and sandbox faults are the model's to read, not failed turns.
      if (error instanceof AuthError || error instanceof SandboxError)
        return textResult(`Tool '${call.tool.name}' could not run: ${error.message}`, true);
      throw error;
    }
  }

  async fake(call: ServerCall): Promise<ServerCallResult | null> {
    const source = call.tool.fake;
    if (!source) return null;
    const record = await this.options.store.resources.get(call.appId, source.collection, source.resourceId);
    return record ? runToolFake(record, record.id, call, await this.environment(call), this.runtime.sandbox) : null;
  }

  async inspectToolset(record: AppResourceRecord, toolsetName: string): Promise<ToolsetInspection> {
    const found = this.options.kinds.kindOf(record);
    if (found?.kind.collection !== 'toolsets') return { tools: [], snapshot: null };
    return found.kind.inspect(found, this.runtime, toolsetName);
  }

  /** Closes pooled MCP connections (at shutdown). */
  async close(): Promise<void> {
    await this.runtime.mcp.clients.close();
  }

  /**
   * The server tools a resource offers, with its common settings. A resource that cannot be
   * compiled (it was valid when stored) costs its tools, not the turn. Workers too busy to compile
   * it now are another matter: a turn without its tools would run (and answer) as if they did not
   * exist, so the request is refused as retryable instead.
   */
  private async definitions(record: AppResourceRecord): Promise<ClientToolDefinition[]> {
    const found = this.options.kinds.kindOf(record);
    if (found?.kind.executor !== 'server') return [];
    try {
      const common = commonSettings(record, this.options.maxTimeoutSeconds);
      return (await found.kind.definitions(found, this.runtime)).map((definition) => ({ ...common, ...definition }));
    } catch (error) {
      if (error instanceof WorkerPoolError && error.reason !== 'task_failed' && error.reason !== 'deadline')
        throw new BatonError(
          'server_tools_unavailable',
          `The tools of ${record.collection}/${record.id} could not be prepared now (${error.message}); ` +
            'nothing was written. Send the request again shortly.',
          { retryAfterSeconds: 1 },
        );
      this.options.logger.warn(
        { err: error, resource: `${record.collection}/${record.id}` },
        'server tools unavailable',
      );
      return [];
    }
  }

  private async environment(call: ServerCall): Promise<CallEnvironment> {
    const session = await this.options.store.sessions.getByConversation(call.conversationId);
    return {
      appId: call.appId,
      conversationId: call.conversationId,
      callId: call.callId,
      variables: session?.variables ?? {},
      sessionId: session?.id ?? null,
      agentName: call.agentName,
      signal: call.signal,
      // Clamped again: a definition may come from elsewhere than commonSettings (a test double, a cache).
      timeoutMs: Math.min(call.tool.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, this.options.maxTimeoutSeconds) * 1000,
      policy: this.options.policy,
      readSecret: (reference) => this.options.readSecret(call.appId, reference),
    };
  }
}

function uniqueByName(tools: readonly ClientToolDefinition[], onClash: (name: string) => void): ClientToolDefinition[] {
  const byName = new Map<string, ClientToolDefinition>();
  for (const tool of tools) {
    if (byName.has(tool.name)) onClash(tool.name);
    else byName.set(tool.name, tool);
  }
  return [...byName.values()];
}
