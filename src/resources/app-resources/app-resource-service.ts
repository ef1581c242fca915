import type { z } from 'zod';
import type { Principal } from '../../domain/principal.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { ListRequest } from '../aip/list-resources.ts';
import { parseCesRequest } from '../aip/request-message.ts';
import type { AgentWriter } from '../agents/agent-writes.ts';
import { toJsonObject } from '../json-objects.ts';
import type { ResourceDependencies } from '../resource-dependencies.ts';
import { AppResourceCrud } from './app-resource-crud.ts';
import type { CollectionSpec } from './collection-spec.ts';

/** The request messages of one collection's five methods. */
export interface ResourceRequestSchemas {
  create: z.ZodType;
  get: z.ZodType;
  list: z.ZodType;
  update: z.ZodType;
  delete: z.ZodType;
}

/**
 * The five CES methods of a JSON-body collection (Tools, Toolsets): each takes the caller and the
 * CES request message, validates it against its schema and returns the CES response message. The
 * resource sits under the collection's singular (`toolset`), its id under `toolsetId`.
 */
export class AppResourceService {
  private readonly crud: AppResourceCrud;

  constructor(
    private readonly spec: CollectionSpec,
    /** The request message of each method (the MCP tools publish them as input schemas). */
    readonly requests: ResourceRequestSchemas,
    deps: ResourceDependencies,
    writer: AgentWriter,
  ) {
    this.crud = new AppResourceCrud(spec, deps, writer);
  }

  private parse(schema: z.ZodType, request: unknown): Record<string, unknown> {
    return parseCesRequest(schema, request) as Record<string, unknown>;
  }

  /** Create{Kind}Request `{parent, {kind}Id?, {kind}}` → the resource. */
  async create(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = this.parse(this.requests.create, request);
    return this.crud.create(
      principal,
      String(parsed.parent),
      parsed[`${this.spec.singular}Id`] as string | undefined,
      toJsonObject(parsed[this.spec.singular] as object),
    );
  }

  /** Get{Kind}Request `{name}` → the resource. */
  async get(principal: Principal, request: unknown): Promise<JsonObject> {
    return this.crud.get(principal, String(this.parse(this.requests.get, request).name));
  }

  /** List{Kinds}Request → `{<collection>, nextPageToken?}`. */
  async list(principal: Principal, request: unknown): Promise<JsonObject> {
    return this.crud.list(principal, this.parse(this.requests.list, request) as unknown as ListRequest);
  }

  /** Update{Kind}Request `{{kind}, updateMask?}` → the resource. */
  async update(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = this.parse(this.requests.update, request);
    return this.crud.update(
      principal,
      toJsonObject(parsed[this.spec.singular] as object),
      parsed.updateMask as string | undefined,
    );
  }

  /** Delete{Kind}Request `{name, force?, etag?}` → Empty. */
  async delete(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = this.parse(this.requests.delete, request);
    return this.crud.delete(principal, String(parsed.name), {
      force: parsed.force as boolean | undefined,
      etag: parsed.etag as string | undefined,
    });
  }
}
