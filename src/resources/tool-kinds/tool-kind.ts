import type { z } from 'zod';
import type { AppResourceRecord, ClientToolDefinition, JsonObject, JsonSchema } from '../../domain/records.ts';
import type { ServerCall, ServerCallResult } from '../../engine/index.ts';
import type { CallEnvironment } from '../tools/call-environment.ts';
import type { RuleContext } from '../tools/common-rules.ts';
import type { ToolRuntime } from './tool-runtime.ts';

/**
 * One kind of Tool or Toolset resource (`clientFunction`, `mcpToolset`, …): everything that
 * differs between kinds, so that the generic Tool and Toolset services, their wire schema, the
 * app's tool provider and `:retrieveTools` read it instead of testing body keys. Adding a kind is
 * one module exporting a ToolKind and one line in registry.ts.
 *
 * What every Tool or Toolset has (executionType, timeout, requireApproval, toolFakeConfig) is the
 * collection's, not a kind's. That includes the fake: `toolFakeConfig` is one for all kinds, and
 * the kind's executor only decides where it answers (instead of the client, or instead of `run`).
 */
interface ToolKindBase {
  /** The member of the resource body that holds this kind, e.g. `clientFunction`: one alternative of the body's oneof. */
  readonly key: string;
  /** The member's shape on the wire: structure and types only (rules are `validate`'s); also published over MCP. */
  readonly schema: z.ZodType;
  /** What the member is, as the wire schema describes it ("One of tool_type: …"). */
  readonly description: string;
  /**
   * Checks the member of a complete body (after any update mask); `prefix` is where it sits in
   * the request (`tool.jsFunction`), for the field a violation names. Returns the member to store.
   */
  validate(context: RuleContext, member: JsonObject, prefix: string): Promise<JsonObject>;
}

/** A stored resource of a kind, with its member. */
export interface KindSource {
  record: AppResourceRecord;
  member: JsonObject;
}

/** One call of a server kind's tool. */
export interface KindCall extends KindSource {
  /** The tool's name inside its resource (an operationId, an MCP tool name), when it has several. */
  toolName: string | undefined;
  /** Where the member sits in a request (`toolset.mcpToolset`): errors about its settings name it. */
  prefix: string;
  call: ServerCall;
  environment: CallEnvironment;
}

/**
 * A Tool whose calls the client application runs: the turn pauses (or, asynchronous, goes on)
 * until the client answers. With fake mode on, its definition names the resource as `fake`, so
 * the engine asks the provider's fake before handing the call to the client.
 */
export interface ClientToolKind extends ToolKindBase {
  readonly collection: 'tools';
  readonly executor: 'client';
  /** The name the Tool is shown by (its output-only displayName). */
  displayName(member: JsonObject): string | undefined;
  /** The function offered to the model, read from the body alone; undefined when the member names none. */
  definition(source: KindSource): ClientToolDefinition | undefined;
}

/** What every kind Baton runs itself has. */
interface ServerKindBase extends ToolKindBase {
  readonly executor: 'server';
  /**
   * The tools the resource offers the model, each with `server` naming its source (the settings
   * common to all kinds are added by the provider). May reach the source (an MCP server).
   */
  definitions(source: KindSource, runtime: ToolRuntime): Promise<ClientToolDefinition[]>;
  /** Runs one call. Failures the model should see are results with `isError`; only bugs throw. */
  run(call: KindCall, runtime: ToolRuntime): Promise<ServerCallResult>;
}

/** A Tool Baton runs itself (one function). */
export interface ServerToolKind extends ServerKindBase {
  readonly collection: 'tools';
  /** The name the Tool is shown by (its output-only displayName). */
  displayName(member: JsonObject): string | undefined;
}

/** A Toolset: tools from one source, all run by Baton. */
export interface ToolsetKind extends ServerKindBase {
  readonly collection: 'toolsets';
  /**
   * Its tools, asked of the source now (`:retrieveTools`); throws a BatonError naming
   * `toolsetName` when the source cannot be read and nothing else can stand in for it.
   */
  inspect(source: KindSource, runtime: ToolRuntime, toolsetName: string): Promise<ToolsetInspection>;
}

export type ToolKind = ClientToolKind | ServerToolKind | ToolsetKind;
export type ToolResourceKind = ClientToolKind | ServerToolKind;

/** One tool of a toolset as `:retrieveTools` shows it. */
export interface InspectedTool {
  /** Its id in the toolset: the name the source reports (an MCP tool, an OpenAPI operation). */
  id: string;
  /** The name the model sees (an MCP `toolOverrides` nameOverride, else the id). */
  name: string;
  description: string;
  parameters: JsonSchema;
  /** The kind's own part of the CES Tool shown for it, e.g. `{mcpTool: {…}}`. */
  wire: JsonObject;
}

/** A toolset's tools as its source lists them now, or the snapshot pinned when it last answered. */
export interface ToolsetInspection {
  tools: InspectedTool[];
  /** Set when `tools` is a pinned snapshot because the source did not answer (a Baton extension). */
  snapshot: { pinTime: string; reason: string } | null;
}
