import { z } from 'zod';
import type { Capability } from '../../domain/access.ts';
import type { Principal } from '../../domain/principal.ts';
import type { McpInputSchema, McpTool, McpToolAnnotations } from './mcp-tool.ts';

/** What a delete tool's description says of the references it may break. */
const DELETE_APP_NOTE =
  'Deletes everything the app holds (agents, tools, toolsets, secrets, conversations); ' +
  'needs an operator key, and the app of the key in use cannot be deleted.';
const DELETE_REFERENCED_NOTE =
  'Refused with FAILED_PRECONDITION while other resources refer to it, unless `force` is true, ' +
  'which removes those references first.';

/** What the CES resource services have in common: the five AIP methods, CES messages in and out. */
export interface ResourceMethods {
  create(principal: Principal, request: unknown): Promise<unknown>;
  get(principal: Principal, request: unknown): Promise<unknown>;
  list(principal: Principal, request: unknown): Promise<unknown>;
  update(principal: Principal, request: unknown): Promise<unknown>;
  delete(principal: Principal, request: unknown): Promise<unknown>;
}

/** One resource family as the MCP server publishes it. */
export interface ResourceFamily {
  /** `toolset` → create_toolset, get_toolset, list_toolsets, update_toolset, delete_toolset. */
  singular: string;
  plural: string;
  /** What the resource is, for the descriptions (one sentence). */
  about: string;
  /** Where it lives: the `parent` of create and list. */
  parent: string;
  /** A hint on the body of create, for a model writing one. */
  createHint: string;
  service: ResourceMethods;
  requests: Record<'create' | 'get' | 'list' | 'update' | 'delete', z.ZodType>;
  /** What creating and deleting one needs: `manage` (an app admin) unless the family says more. */
  lifecycle?: Capability;
}

// Annotations as CES publishes them (its create_toolset and delete_* pages): writes are
// destructive and not idempotent, reads are read-only and idempotent; nothing leaves Baton.
const WRITE: McpToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
const READ: McpToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

function inputSchemaOf(schema: z.ZodType): McpInputSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return { ...json, type: 'object' } as McpInputSchema;
}

/**
 * The management tools of one family. Inputs are the REST request messages, outputs the REST
 * responses: each handler is the service method itself, so REST and MCP share every rule.
 */
export function familyTools(family: ResourceFamily): McpTool[] {
  const { singular, plural, about, parent, service, requests } = family;
  const a = /^[aeiou]/.test(singular) ? `an ${singular}` : `a ${singular}`;
  const tool = (
    name: string,
    description: string,
    request: z.ZodType,
    annotations: McpToolAnnotations,
    run: (principal: Principal, args: unknown) => Promise<unknown>,
    capability: Capability = annotations.readOnlyHint ? 'read' : 'manage',
  ): McpTool => ({
    name,
    description,
    inputSchema: inputSchemaOf(request),
    annotations,
    capability,
    handler: (args, principal) => run(principal, args),
  });
  const lifecycle = family.lifecycle ?? 'manage';
  return [
    tool(
      `create_${singular}`,
      `Creates ${a}. ${about} \`parent\` is ${parent}; \`${singular}Id\` (optional, letters, digits, ` +
        `'-' and '_') becomes the last part of its name, else one is generated; an id already in use ` +
        `fails with ALREADY_EXISTS. ${family.createHint} Output-only fields (name, createTime, updateTime, ` +
        `etag) are ignored. Returns the created ${singular}.`,
      requests.create,
      WRITE,
      (principal, args) => service.create(principal, args),
      lifecycle,
    ),
    tool(
      `get_${singular}`,
      `Reads one ${singular} by its resource name (\`name\`, as returned by create_${singular} or list_${plural}). ${about}`,
      requests.get,
      READ,
      (principal, args) => service.get(principal, args),
    ),
    tool(
      `list_${plural}`,
      `Lists the ${plural} of ${parent} (\`parent\`). Optional: \`pageSize\` (default 50, at most ` +
        `1000), \`pageToken\` (the previous response's nextPageToken, with the same filter and orderBy), ` +
        `\`filter\` (AIP-160, e.g. displayName = "support*"), \`orderBy\` ("name" or "create_time", ` +
        `add " desc" to reverse). No nextPageToken in the response means the last page.`,
      requests.list,
      READ,
      (principal, args) => service.list(principal, args),
    ),
    tool(
      `update_${singular}`,
      `Updates ${a} identified by \`${singular}.name\`. ALWAYS pass \`updateMask\`: a comma-separated ` +
        `list of the camelCase fields you change (e.g. "displayName,description"); without a mask EVERY ` +
        `field is replaced by what you send and fields you leave out are cleared. Send the \`etag\` ` +
        `you read inside \`${singular}\` so a concurrent change fails with ABORTED instead of being ` +
        `overwritten; then read it again and retry. Returns the updated ${singular}.`,
      requests.update,
      WRITE,
      (principal, args) => service.update(principal, args),
    ),
    tool(
      `delete_${singular}`,
      `Deletes ${a} by \`name\`. ${singular === 'app' ? DELETE_APP_NOTE : DELETE_REFERENCED_NOTE} ` +
        `Pass \`etag\` to delete only the version you read (a stale etag fails with ABORTED). Cannot ` +
        `be undone.`,
      requests.delete,
      WRITE,
      (principal, args) => service.delete(principal, args),
      lifecycle,
    ),
  ];
}
