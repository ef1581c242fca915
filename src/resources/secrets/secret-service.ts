import { BatonError } from '../../domain/errors/baton-error.ts';
import { z } from 'zod';
import type { Principal } from '../../domain/principal.ts';
import type { JsonObject, SecretRecord } from '../../domain/records.ts';
import { DuplicateKeyError } from '../../store/store.ts';
import { resolveApp } from '../apps/app-access.ts';
import { computeEtag } from '../aip/etag.ts';
import { applyFieldMask, parseFieldMask, type MaskSpec } from '../aip/field-mask.ts';
import { listRequestFields, listResponse } from '../aip/list-resources.ts';
import {
  chooseResourceId,
  formatAppName,
  formatChildName,
  parseAppName,
  parseChildName,
  type AppPath,
} from '../aip/resource-names.ts';
import { referencedSecretId, secretReferencesOf } from './secret-references.ts';
import { sealSecretValue } from './secret-values.ts';
import type { ResourceDependencies } from '../resource-dependencies.ts';
import { assertFreshEtag, concurrentUpdate, nowIso } from '../aip/resource-writes.ts';
import { parseCesRequest } from '../aip/request-message.ts';
import type { ResourceRequestSchemas } from '../app-resources/app-resource-service.ts';

/**
 * Secrets of an app: Baton's encrypted store in place of Secret Manager (REST only; not offered
 * over MCP, where values would pass through a model's context). The value is write-only: no
 * response carries it, and only its ciphertext is stored.
 */

const secretSchema = z.strictObject({
  name: z
    .string()
    .optional()
    .describe(
      'projects/{p}/locations/{l}/apps/{a}/secrets/{secret}. Ignored on create; identifies the secret on update.',
    ),
  displayName: z.string().optional(),
  value: z.string().optional().describe('Required on create; at most 64 KiB. Write-only: never returned.'),
  createTime: z.string().optional().describe('Output only. Ignored on input.'),
  updateTime: z.string().optional().describe('Output only. Ignored on input.'),
  etag: z.string().optional().describe('On update: the etag you read. A stale one is ABORTED.'),
});

export const createSecretRequestSchema = z.strictObject({
  parent: z.string().describe('The app: projects/{p}/locations/{l}/apps/{a}.'),
  secretId: z.string().optional().describe('^[a-zA-Z0-9_-]{1,64}$; generated when absent.'),
  secret: secretSchema,
});
export const getSecretRequestSchema = z.strictObject({ name: z.string() });
export const listSecretsRequestSchema = z.strictObject({ parent: z.string(), ...listRequestFields });
export const updateSecretRequestSchema = z.strictObject({
  secret: secretSchema,
  updateMask: z.string().optional().describe('"displayName", "value" or both. Absent: the fields present in the body.'),
});
/** No `force`: a referenced secret must stay, or the tools using it would fail at run time. */
export const deleteSecretRequestSchema = z.strictObject({ name: z.string(), etag: z.string().optional() });

const MASK: MaskSpec = {
  mutable: ['displayName', 'value'],
  outputOnly: ['name', 'createTime', 'updateTime', 'etag'],
  unions: [],
};
const FILTER_FIELDS = ['name', 'displayName', 'createTime', 'updateTime', 'etag'];

export class SecretService {
  /** The request message of each method (the REST face reads field names by them). */
  readonly requests: ResourceRequestSchemas = {
    create: createSecretRequestSchema,
    get: getSecretRequestSchema,
    list: listSecretsRequestSchema,
    update: updateSecretRequestSchema,
    delete: deleteSecretRequestSchema,
  };

  constructor(private readonly deps: ResourceDependencies) {}

  private render(record: SecretRecord, path: AppPath): JsonObject {
    return {
      name: formatChildName(path, 'secrets', record.id),
      ...(record.displayName === null ? {} : { displayName: record.displayName }),
      createTime: record.createdAt,
      updateTime: record.updatedAt,
      etag: computeEtag([record.id, record.revision]),
    };
  }

  private async load(principal: Principal, name: unknown, field: string) {
    const path = parseChildName(name, 'secrets', field);
    const app = await resolveApp(this.deps.store, principal, path.project, path.location, path.app);
    const record = await this.deps.store.secrets.get(app.id, path.id);
    if (!record) {
      throw new BatonError(
        'secret_not_found',
        `Secret '${formatChildName(path, 'secrets', path.id)}' was not found. List secrets with GET /v1/${formatAppName(path)}/secrets.`,
      );
    }
    return { path, app, record };
  }

  /** CreateSecret `{parent, secretId?, secret: {displayName?, value}}` → Secret (without value). */
  async create(principal: Principal, request: unknown): Promise<JsonObject> {
    const { parent, secretId, secret } = parseCesRequest(createSecretRequestSchema, request);
    const path = parseAppName(parent, 'parent');
    const app = await resolveApp(this.deps.store, principal, path.project, path.location, path.app);
    const id = chooseResourceId(secretId, 'secretId', 'secret');
    const ciphertext = sealSecretValue(this.deps.keys, app.id, id, secret.value, 'secret.value');
    const now = nowIso();
    const record: SecretRecord = {
      appId: app.id,
      id,
      displayName: secret.displayName ?? null,
      ciphertext,
      revision: 1,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.deps.store.secrets.insert(record);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      const name = formatChildName(path, 'secrets', id);
      throw new BatonError(
        'secret_exists',
        `Secret '${name}' already exists; choose another secretId or change its value with PATCH /v1/${name}.`,
        { param: 'secretId' },
      );
    }
    return this.render(record, path);
  }

  async get(principal: Principal, request: unknown): Promise<JsonObject> {
    const { path, record } = await this.load(principal, parseCesRequest(getSecretRequestSchema, request).name, 'name');
    return this.render(record, path);
  }

  async list(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = parseCesRequest(listSecretsRequestSchema, request);
    const path = parseAppName(parsed.parent, 'parent');
    const app = await resolveApp(this.deps.store, principal, path.project, path.location, path.app);
    const secrets = (await this.deps.store.secrets.list(app.id)).map((record) => this.render(record, path));
    return listResponse('secrets', secrets, parsed, { fields: FILTER_FIELDS, codec: this.deps.keys.pageTokens });
  }

  /**
   * Without a mask only the fields present change: the value cannot be read back, so "replace
   * everything" would force clients to resend it just to rename the secret.
   */
  async update(principal: Principal, request: unknown): Promise<JsonObject> {
    const { secret, updateMask } = parseCesRequest(updateSecretRequestSchema, request);
    const { path, app, record } = await this.load(principal, secret.name, 'secret.name');
    const name = formatChildName(path, 'secrets', path.id);
    assertFreshEtag(secret.etag, computeEtag([record.id, record.revision]), name, 'secret.etag');
    const paths =
      parseFieldMask(updateMask) ??
      MASK.mutable.filter((field) => secret[field as 'displayName' | 'value'] !== undefined);
    if (paths.length === 0) {
      throw new BatonError(
        'nothing_to_update',
        'The request changes nothing: send secret.value and/or secret.displayName, or an updateMask naming them.',
        { param: 'updateMask' },
      );
    }
    const current = record.displayName === null ? {} : { displayName: record.displayName };
    const merged = applyFieldMask(current, secret, paths, MASK);
    const replacesValue = paths.includes('*') || paths.includes('value');
    const ciphertext = replacesValue
      ? sealSecretValue(this.deps.keys, app.id, path.id, merged.value, 'secret.value')
      : record.ciphertext;
    const displayName = typeof merged.displayName === 'string' ? merged.displayName : null;
    const updated = await this.deps.store.secrets.update(
      app.id,
      path.id,
      record.revision,
      { ciphertext, displayName },
      nowIso(),
    );
    if (!updated) throw concurrentUpdate(name);
    return this.render(updated, path);
  }

  /** Refused while a tool or toolset references the secret: deleting it would break them at run time. */
  async delete(principal: Principal, request: unknown): Promise<JsonObject> {
    const { name, etag } = parseCesRequest(deleteSecretRequestSchema, request);
    const { path, app, record } = await this.load(principal, name, 'name');
    const fullName = formatChildName(path, 'secrets', path.id);
    assertFreshEtag(etag, computeEtag([record.id, record.revision]), fullName, 'etag');
    const referrers: string[] = [];
    for (const collection of ['tools', 'toolsets'] as const) {
      for (const resource of await this.deps.store.resources.list(app.id, collection)) {
        if (
          secretReferencesOf(resource.body).some(
            (reference) => referencedSecretId(path, reference.reference) === path.id,
          )
        ) {
          referrers.push(formatChildName(path, collection, resource.id));
        }
      }
    }
    if (referrers.length > 0) {
      throw new BatonError(
        'secret_in_use',
        `Secret '${fullName}' is used by ${referrers.join(', ')}. Change their apiAuthentication to another secret (or delete them) first.`,
        { details: { referrers } },
      );
    }
    await this.deps.store.secrets.delete(app.id, path.id);
    return {};
  }
}
