import type { ClientToolDefinition, JsonObject, JsonValue, ServerToolSource } from '../../domain/records.ts';
import type { Repositories } from '../../store/store.ts';
import type { EgressPolicy } from '../../tools/http/address-policy.ts';
import type { McpServerTarget, McpToolDescription, McpToolsetClients } from '../../tools/mcp/mcp-toolset-client.ts';
import { isJsonObject } from '../json-objects.ts';
import { caCertsOf } from '../tools/call-environment.ts';

/** How long a fetched tool list is reused before the server is asked again. */
const LIST_TTL_MS = 60_000;
/** After a failed listing, the server is not asked again for this long (turns use the snapshot). */
const FAILURE_TTL_MS = 10_000;
/** Listing happens when a turn starts, so a server that does not answer must not hold the turn long. */
const LIST_TIMEOUT_MS = 5_000;
export const SNAPSHOTS = 'mcp-tool-snapshots';

interface Listed {
  tools: McpToolDescription[];
  /** Why the live list is unavailable (the snapshot, if any, is in `tools`). */
  problem: string | null;
  /** When the snapshot in `tools` was pinned (the list last changed); null when `tools` is the live list or nothing was pinned. */
  snapshotTime: string | null;
  expiresAt: number;
}

/** The tool list of an MCP toolset, as the model will see it, and where each tool came from. */
export interface McpListing {
  definitions: ClientToolDefinition[];
  problem: string | null;
  fromSnapshot: boolean;
  /** When the snapshot the definitions come from was pinned (null: the live list, or none pinned). */
  snapshotTime: string | null;
}

export interface ListOptions {
  /** Ask the server now instead of reusing a cached list (`:retrieveTools`); the answer is cached for turns. */
  fresh?: boolean;
}

/**
 * MCP toolsets' tool lists: fetched from the server (without the bearer token, as CES does),
 * reused for a minute, and pinned as a snapshot in the store after each change, so a turn that
 * starts while the server is down still offers the tools; their calls then fail as results.
 */
export class McpToolLists {
  private readonly cache = new Map<string, Listed>();

  constructor(
    private readonly store: Pick<Repositories, 'resources'>,
    private readonly clients: McpToolsetClients,
    private readonly policy: () => EgressPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  async list(
    appId: string,
    toolsetId: string,
    revision: number,
    mcp: JsonObject,
    headers: Record<string, string>,
    options: ListOptions = {},
  ): Promise<McpListing> {
    const key = `${appId}/${toolsetId}/${revision}`;
    let listed = this.cache.get(key);
    if (!listed || listed.expiresAt <= this.now() || options.fresh) {
      listed = await this.fetch(appId, toolsetId, mcp, headers);
      if (this.cache.size > 500) this.cache.clear();
      this.cache.set(key, listed);
    }
    const source: ServerToolSource = { collection: 'toolsets', resourceId: toolsetId };
    return {
      definitions: withOverrides(listed.tools, mcp.toolOverrides).map(({ tool, name, description }) => ({
        name,
        description,
        parameters: tool.inputSchema,
        server: { ...source, toolName: tool.name },
      })),
      problem: listed.problem,
      fromSnapshot: listed.snapshotTime !== null,
      snapshotTime: listed.snapshotTime,
    };
  }

  /** Forgets cached lists, so the next turn asks the server (after an update, in tests). */
  clear(): void {
    this.cache.clear();
  }

  target(mcp: JsonObject, headers: Record<string, string>, credentialHeaders: readonly string[] = []): McpServerTarget {
    const ca = caCertsOf(mcp.tlsConfig);
    return {
      serverAddress: String(mcp.serverAddress),
      headers,
      credentialHeaders,
      policy: this.policy(),
      timeoutMs: LIST_TIMEOUT_MS,
      ...(ca.length > 0 ? { ca } : {}),
    };
  }

  private async fetch(
    appId: string,
    toolsetId: string,
    mcp: JsonObject,
    headers: Record<string, string>,
  ): Promise<Listed> {
    const serverAddress = String(mcp.serverAddress);
    try {
      const tools = await withTimeout(
        this.clients.listTools(this.target(mcp, headers)),
        LIST_TIMEOUT_MS,
        `no answer within ${LIST_TIMEOUT_MS / 1000} s`,
      );
      await this.pin(appId, toolsetId, serverAddress, tools);
      return { tools, problem: null, snapshotTime: null, expiresAt: this.now() + LIST_TTL_MS };
    } catch (error) {
      const problem = `MCP server ${serverAddress} is unavailable: ${error instanceof Error ? error.message : String(error)}`;
      const snapshot = await this.store.resources.get(appId, SNAPSHOTS, toolsetId);
      if (!snapshot || snapshot.body.serverAddress !== serverAddress || !Array.isArray(snapshot.body.tools)) {
        return { tools: [], problem, snapshotTime: null, expiresAt: this.now() + FAILURE_TTL_MS };
      }
      const snapshotTime = typeof snapshot.body.fetchedAt === 'string' ? snapshot.body.fetchedAt : snapshot.updatedAt;
      return {
        tools: snapshot.body.tools as unknown as McpToolDescription[],
        problem,
        snapshotTime,
        expiresAt: this.now() + FAILURE_TTL_MS,
      };
    }
  }

  /** Stores the list when it changed; a lost race with another process is fine (both wrote a fresh list). */
  private async pin(
    appId: string,
    toolsetId: string,
    serverAddress: string,
    tools: McpToolDescription[],
  ): Promise<void> {
    const body: JsonObject = { serverAddress, tools: tools as unknown as JsonValue[] };
    const now = new Date(this.now()).toISOString();
    const current = await this.store.resources.get(appId, SNAPSHOTS, toolsetId);
    if (!current) {
      await this.store.resources
        .insert({
          appId,
          collection: SNAPSHOTS,
          id: toolsetId,
          body: { ...body, fetchedAt: now },
          revision: 1,
          createdAt: now,
          updatedAt: now,
        })
        .catch(() => {});
    } else if (
      JSON.stringify(current.body.tools) !== JSON.stringify(body.tools) ||
      current.body.serverAddress !== serverAddress
    ) {
      await this.store.resources.update(
        appId,
        SNAPSHOTS,
        toolsetId,
        current.revision,
        { ...body, fetchedAt: now },
        now,
      );
    }
  }
}

/** CES `toolOverrides`: a tool listed by the server may get another name and description. */
function withOverrides(
  tools: readonly McpToolDescription[],
  overrides: JsonValue | undefined,
): { tool: McpToolDescription; name: string; description: string }[] {
  const byTool = new Map<string, JsonObject>();
  for (const entry of Array.isArray(overrides) ? overrides : [])
    if (isJsonObject(entry) && typeof entry.tool === 'string') byTool.set(entry.tool, entry);
  return tools.map((tool) => {
    const override = byTool.get(tool.name);
    const name =
      typeof override?.nameOverride === 'string' && override.nameOverride !== '' ? override.nameOverride : tool.name;
    const description =
      typeof override?.descriptionOverride === 'string' && override.descriptionOverride !== ''
        ? override.descriptionOverride
        : tool.description;
    return { tool, name, description };
  });
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
