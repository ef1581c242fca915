import { BatonError } from '../../domain/errors/baton-error.ts';
import type { Principal } from '../../domain/principal.ts';
import type { AppResourceRecord, JsonObject } from '../../domain/records.ts';
import { DuplicateKeyError } from '../../store/store.ts';
import { resolveApp } from '../apps/app-access.ts';
import { computeEtag } from '../aip/etag.ts';
import { applyFieldMask, parseFieldMask } from '../aip/field-mask.ts';
import { releaseAgentReferences } from '../agents/agent-references.ts';
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
import type { ResourceDependencies } from '../resource-dependencies.ts';
import { assertFreshEtag, concurrentUpdate, nowIso } from '../aip/resource-writes.ts';
import { withoutFields } from '../json-objects.ts';
import type { CollectionSpec } from './collection-spec.ts';

export interface DeleteOptions {
  force?: boolean | undefined;
  etag?: string | undefined;
}

/** AIP CRUD of one app-resource collection, shared by the Tool and Toolset services. */
export class AppResourceCrud {
  constructor(
    private readonly spec: CollectionSpec,
    private readonly deps: ResourceDependencies,
    private readonly writer: AgentWriter,
  ) {}

  private get title(): string {
    return this.spec.singular === 'tool' ? 'Tool' : 'Toolset';
  }

  private async context(principal: Principal, path: AppPath): Promise<RuleContext> {
    const app = await resolveApp(this.deps.store, principal, path.project, path.location, path.app);
    return { store: this.deps.store, app, path, openApi: this.deps.openApi };
  }

  private etagOf(record: AppResourceRecord): string {
    // createdAt tells apart a resource deleted and created again under the same id.
    return computeEtag([record.id, record.revision, record.createdAt]);
  }

  private render(record: AppResourceRecord, path: AppPath): JsonObject {
    return {
      name: formatChildName(path, this.spec.collection, record.id),
      ...this.spec.derived(record.body),
      ...record.body,
      createTime: record.createdAt,
      updateTime: record.updatedAt,
      etag: this.etagOf(record),
    };
  }

  private async load(context: RuleContext, id: string): Promise<AppResourceRecord> {
    const record = await this.deps.store.resources.get(context.app.id, this.spec.collection, id);
    if (!record) {
      const name = formatChildName(context.path, this.spec.collection, id);
      throw new BatonError(
        this.spec.codes.notFound,
        `${this.title} '${name}' was not found. List them with GET /v1/${formatAppName(context.path)}/${this.spec.collection}.`,
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
    const id = chooseResourceId(requestedId, `${this.spec.singular}Id`, this.spec.singular);
    const body = await this.spec.validate(context, withoutFields(resource, this.spec.mask.outputOnly), id);
    const now = nowIso();
    const record: AppResourceRecord = {
      appId: context.app.id,
      collection: this.spec.collection,
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
      const name = formatChildName(path, this.spec.collection, id);
      throw new BatonError(
        this.spec.codes.exists,
        `${this.title} '${name}' already exists; choose another ${this.spec.singular}Id or update it with PATCH /v1/${name}.`,
        {
          param: `${this.spec.singular}Id`,
        },
      );
    }
    return this.render(record, path);
  }

  async get(principal: Principal, name: string): Promise<JsonObject> {
    const path = parseChildName(name, this.spec.collection, 'name');
    const context = await this.context(principal, path);
    return this.render(await this.load(context, path.id), path);
  }

  async list(principal: Principal, request: ListRequest): Promise<JsonObject> {
    const path = parseAppName(request.parent, 'parent');
    const context = await this.context(principal, path);
    const records = await this.deps.store.resources.list(context.app.id, this.spec.collection);
    const resources = records.map((record) => this.render(record, path));
    return listResponse(this.spec.collection, resources, request, {
      fields: this.spec.filterFields,
      codec: this.deps.keys.pageTokens,
    });
  }

  /** AIP-134 with CES's rule that an absent mask replaces every mutable field. */
  async update(principal: Principal, resource: JsonObject, updateMask: string | undefined): Promise<JsonObject> {
    const field = this.spec.singular;
    const path = parseChildName(resource.name, this.spec.collection, `${field}.name`);
    const context = await this.context(principal, path);
    const current = await this.load(context, path.id);
    const name = formatChildName(path, this.spec.collection, path.id);
    assertFreshEtag(
      typeof resource.etag === 'string' ? resource.etag : undefined,
      this.etagOf(current),
      name,
      `${field}.etag`,
    );
    const paths = parseFieldMask(updateMask);
    const merged = applyFieldMask(
      current.body,
      withoutFields(resource, this.spec.mask.outputOnly),
      paths,
      this.spec.mask,
    ) as JsonObject;
    const body = await this.spec.validate(context, withoutFields(merged, this.spec.mask.outputOnly), path.id);
    const updated = await this.deps.store.resources.update(
      context.app.id,
      this.spec.collection,
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
    const path = parseChildName(name, this.spec.collection, 'name');
    const context = await this.context(principal, path);
    const current = await this.load(context, path.id);
    const fullName = formatChildName(path, this.spec.collection, path.id);
    assertFreshEtag(options.etag, this.etagOf(current), fullName, 'etag');
    await releaseAgentReferences(this.deps.store, this.writer, context.app, path, {
      collection: this.spec.collection,
      id: path.id,
      name: fullName,
      force: options.force === true,
    });
    // With an etag only the revision the caller read is deleted, so a change made meanwhile is
    // ABORTED rather than lost; without one, someone else's delete meanwhile is the same outcome.
    const checked = options.etag !== undefined && options.etag !== '';
    const deleted = await this.deps.store.resources.delete(
      context.app.id,
      this.spec.collection,
      path.id,
      checked ? current.revision : undefined,
    );
    if (checked && !deleted) throw concurrentUpdate(fullName);
    return {};
  }
}
