import type { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ErrorCode } from '../../domain/errors/error-catalogue.ts';
import type { Principal } from '../../domain/principal.ts';
import type { AppResourceRecord, JsonObject } from '../../domain/records.ts';
import { DuplicateKeyError } from '../../store/store.ts';
import { resolveApp } from '../apps/app-access.ts';
import { computeEtag } from '../aip/etag.ts';
import { applyFieldMask, parseFieldMask, type MaskSpec } from '../aip/field-mask.ts';
import { releaseAgentReferences, type ReferencedCollection } from '../agents/agent-references.ts';
import type { AgentWriter } from '../agents/agent-writes.ts';
import type { RuleContext } from '../tools/common-rules.ts';
import { listResponse, type ListRequest } from '../aip/list-resources.ts';
import {
  chooseResourceId,
  formatAppName,
  formatChildName,
  parseAppName,
  parseChildName,
  type AppPath,
} from '../aip/resource-names.ts';
import {
  assertFreshEtag,
  concurrentUpdate,
  nowIso,
  parseCesRequest,
  toJsonObject,
  withoutFields,
  type CesResourceDependencies,
} from '../aip/service-support.ts';

/**
 * What differs between the resources kept as JSON bodies in `store.resources` (tools, toolsets);
 * everything else — names, etags, masks, references, paging — is `AppResourceCrud`.
 */
export interface ResourceKind {
  collection: ReferencedCollection;
  singular: 'tool' | 'toolset';
  /** The codes of a missing resource and of an id already taken. */
  codes: { notFound: ErrorCode; exists: ErrorCode };
  /** `mask.outputOnly` doubles as the list of fields the server owns and never stores. */
  mask: MaskSpec;
  /** Top-level wire fields a list filter may name. */
  filterFields: readonly string[];
  /** Checks a complete body (server-owned fields removed) and returns what is stored. */
  validate(context: RuleContext, body: JsonObject, id: string): Promise<JsonObject>;
  /** Output-only fields computed from the body (a tool's displayName). */
  derived(body: JsonObject): JsonObject;
}

export interface DeleteOptions {
  force?: boolean | undefined;
  etag?: string | undefined;
}

/** AIP CRUD of one app-resource collection, shared by the Tool and Toolset services. */
export class AppResourceCrud {
  constructor(
    private readonly kind: ResourceKind,
    private readonly deps: CesResourceDependencies,
    private readonly writer: AgentWriter,
  ) {}

  private get title(): string {
    return this.kind.singular === 'tool' ? 'Tool' : 'Toolset';
  }

  private async context(principal: Principal, path: AppPath): Promise<RuleContext> {
    const app = await resolveApp(this.deps.store, principal, path.project, path.location, path.app);
    return { store: this.deps.store, app, path };
  }

  private etagOf(record: AppResourceRecord): string {
    // createdAt tells apart a resource deleted and created again under the same id.
    return computeEtag([record.id, record.revision, record.createdAt]);
  }

  private render(record: AppResourceRecord, path: AppPath): JsonObject {
    return {
      name: formatChildName(path, this.kind.collection, record.id),
      ...this.kind.derived(record.body),
      ...record.body,
      createTime: record.createdAt,
      updateTime: record.updatedAt,
      etag: this.etagOf(record),
    };
  }

  private async load(context: RuleContext, id: string): Promise<AppResourceRecord> {
    const record = await this.deps.store.resources.get(context.app.id, this.kind.collection, id);
    if (!record) {
      const name = formatChildName(context.path, this.kind.collection, id);
      throw new BatonError(
        this.kind.codes.notFound,
        `${this.title} '${name}' was not found. List them with GET /v1/${formatAppName(context.path)}/${this.kind.collection}.`,
      );
    }
    return record;
  }

  async create(
    principal: Principal,
    parent: string,
    requestedId: string | undefined,
    resource: JsonObject,
  ): Promise<JsonObject> {
    const path = parseAppName(parent, 'parent');
    const context = await this.context(principal, path);
    const id = chooseResourceId(requestedId, `${this.kind.singular}Id`, this.kind.singular);
    const body = await this.kind.validate(context, withoutFields(resource, this.kind.mask.outputOnly), id);
    const now = nowIso();
    const record: AppResourceRecord = {
      appId: context.app.id,
      collection: this.kind.collection,
      id,
      body,
      revision: 1,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.deps.store.resources.insert(record);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      const name = formatChildName(path, this.kind.collection, id);
      throw new BatonError(
        this.kind.codes.exists,
        `${this.title} '${name}' already exists; choose another ${this.kind.singular}Id or update it with PATCH /v1/${name}.`,
        {
          param: `${this.kind.singular}Id`,
        },
      );
    }
    return this.render(record, path);
  }

  async get(principal: Principal, name: string): Promise<JsonObject> {
    const path = parseChildName(name, this.kind.collection, 'name');
    const context = await this.context(principal, path);
    return this.render(await this.load(context, path.id), path);
  }

  async list(principal: Principal, request: ListRequest): Promise<JsonObject> {
    const path = parseAppName(request.parent, 'parent');
    const context = await this.context(principal, path);
    const records = await this.deps.store.resources.list(context.app.id, this.kind.collection);
    const resources = records.map((record) => this.render(record, path));
    return listResponse(this.kind.collection, resources, request, {
      fields: this.kind.filterFields,
      codec: this.deps.keys.pageTokens,
    });
  }

  /** AIP-134 with CES's rule that an absent mask replaces every mutable field. */
  async update(principal: Principal, resource: JsonObject, updateMask: string | undefined): Promise<JsonObject> {
    const field = this.kind.singular;
    const path = parseChildName(resource.name, this.kind.collection, `${field}.name`);
    const context = await this.context(principal, path);
    const current = await this.load(context, path.id);
    const name = formatChildName(path, this.kind.collection, path.id);
    assertFreshEtag(
      typeof resource.etag === 'string' ? resource.etag : undefined,
      this.etagOf(current),
      name,
      `${field}.etag`,
    );
    const paths = parseFieldMask(updateMask);
    const merged = applyFieldMask(
      current.body,
      withoutFields(resource, this.kind.mask.outputOnly),
      paths,
      this.kind.mask,
    ) as JsonObject;
    const body = await this.kind.validate(context, withoutFields(merged, this.kind.mask.outputOnly), path.id);
    const updated = await this.deps.store.resources.update(
      context.app.id,
      this.kind.collection,
      path.id,
      current.revision,
      body,
      nowIso(),
    );
    if (!updated) throw concurrentUpdate(name);
    return this.render(updated, path);
  }

  /** AIP-135: returns Empty. References from agents block it unless `force` removes them. */
  async delete(principal: Principal, name: string, options: DeleteOptions): Promise<JsonObject> {
    const path = parseChildName(name, this.kind.collection, 'name');
    const context = await this.context(principal, path);
    const current = await this.load(context, path.id);
    const fullName = formatChildName(path, this.kind.collection, path.id);
    assertFreshEtag(options.etag, this.etagOf(current), fullName, 'etag');
    await releaseAgentReferences(this.deps.store, this.writer, context.app, path, {
      collection: this.kind.collection,
      id: path.id,
      name: fullName,
      force: options.force === true,
    });
    // With an etag only the revision the caller read is deleted, so a change made meanwhile is
    // ABORTED rather than lost; without one, someone else's delete meanwhile is the same outcome.
    const checked = options.etag !== undefined && options.etag !== '';
    const deleted = await this.deps.store.resources.delete(
      context.app.id,
      this.kind.collection,
      path.id,
      checked ? current.revision : undefined,
    );
    if (checked && !deleted) throw concurrentUpdate(fullName);
    return {};
  }
}

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
    private readonly kind: ResourceKind,
    private readonly schemas: ResourceRequestSchemas,
    deps: CesResourceDependencies,
    writer: AgentWriter,
  ) {
    this.crud = new AppResourceCrud(kind, deps, writer);
  }

  private parse(schema: z.ZodType, request: unknown): Record<string, unknown> {
    return parseCesRequest(schema, request) as Record<string, unknown>;
  }

  /** Create{Kind}Request `{parent, {kind}Id?, {kind}}` → the resource. */
  async create(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = this.parse(this.schemas.create, request);
    return this.crud.create(
      principal,
      String(parsed.parent),
      parsed[`${this.kind.singular}Id`] as string | undefined,
      toJsonObject(parsed[this.kind.singular] as object),
    );
  }

  /** Get{Kind}Request `{name}` → the resource. */
  async get(principal: Principal, request: unknown): Promise<JsonObject> {
    return this.crud.get(principal, String(this.parse(this.schemas.get, request).name));
  }

  /** List{Kinds}Request → `{<collection>, nextPageToken?}`. */
  async list(principal: Principal, request: unknown): Promise<JsonObject> {
    return this.crud.list(principal, this.parse(this.schemas.list, request) as unknown as ListRequest);
  }

  /** Update{Kind}Request `{{kind}, updateMask?}` → the resource. */
  async update(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = this.parse(this.schemas.update, request);
    return this.crud.update(
      principal,
      toJsonObject(parsed[this.kind.singular] as object),
      parsed.updateMask as string | undefined,
    );
  }

  /** Delete{Kind}Request `{name, force?, etag?}` → Empty. */
  async delete(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = this.parse(this.schemas.delete, request);
    return this.crud.delete(principal, String(parsed.name), {
      force: parsed.force as boolean | undefined,
      etag: parsed.etag as string | undefined,
    });
  }
}
