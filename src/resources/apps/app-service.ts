import { systemClock } from '../../domain/clock.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { newId } from '../../domain/ids.ts';
import { purgeApp, requestAppDeletion } from '../../engine/index.ts';
import type { Principal } from '../../domain/principal.ts';
import { newAppRecord } from './app-records.ts';
import type { AppRecord, JsonObject } from '../../domain/records.ts';
import { DuplicateKeyError } from '../../store/store.ts';
import { canUse, requireAppOperator, resolveApp } from './app-access.ts';
import { computeEtag } from '../aip/etag.ts';
import { applyFieldMask, parseFieldMask, type MaskSpec } from '../aip/field-mask.ts';
import { isCesAgent } from '../agents/agent-references.ts';
import {
  createAppRequestSchema,
  deleteAppRequestSchema,
  getAppRequestSchema,
  listAppsRequestSchema,
  updateAppRequestSchema,
} from './app-schemas.ts';
import { requireText } from '../tools/common-rules.ts';
import { doneOperation } from './done-operation.ts';
import { listResponse } from '../aip/list-resources.ts';
import {
  childIdIn,
  chooseResourceId,
  formatAppName,
  parseAppName,
  parseLocationName,
  type AppPath,
} from '../aip/resource-names.ts';
import type { ResourceDependencies } from '../resource-dependencies.ts';
import type { ResourceRequestSchemas } from '../app-resources/app-resource-service.ts';
import { assertFreshEtag, concurrentUpdate, nowIso } from '../aip/resource-writes.ts';
import { parseCesRequest } from '../aip/request-message.ts';
import { asObject, toJsonObject, withoutFields } from '../json-objects.ts';

const MASK: MaskSpec = {
  mutable: [
    'displayName',
    'description',
    'pinned',
    'rootAgent',
    'languageSettings',
    'timeZoneSettings',
    'modelSettings',
    'toolExecutionMode',
    'globalInstruction',
    'variableDeclarations',
    'metadata',
    'retention',
  ],
  outputOnly: [
    'name',
    'createTime',
    'updateTime',
    'etag',
    'deploymentCount',
    'predefinedVariableDeclarations',
    'validationErrors',
  ],
  unions: [],
};
const FILTER_FIELDS = [...MASK.mutable, 'name', 'createTime', 'updateTime', 'etag'];
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function invalid(field: string, message: string): never {
  throw new BatonError('invalid_field', message, { param: field });
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Rendered from AppRecord: CES fields live in `settings`; the name, times and etag are the record's. */
function renderApp(app: AppRecord): JsonObject {
  return {
    name: formatAppName({ project: app.project, location: app.location, app: app.name }),
    ...app.settings,
    displayName: typeof app.settings.displayName === 'string' ? app.settings.displayName : app.name,
    createTime: app.createdAt,
    updateTime: app.updatedAt,
    etag: computeEtag([app.id, app.revision]),
  };
}

/**
 * Apps (CES AgentService *App methods) over Baton's apps: the tenants that own agents, tools,
 * keys and conversations. Create and delete need an operator key and answer with an Operation
 * that is already done. Every method takes the caller and the CES request message.
 */
export class AppService {
  /** The request message of each method (the MCP tools publish them as input schemas). */
  readonly requests: ResourceRequestSchemas = {
    create: createAppRequestSchema,
    get: getAppRequestSchema,
    list: listAppsRequestSchema,
    update: updateAppRequestSchema,
    delete: deleteAppRequestSchema,
  };

  constructor(private readonly deps: ResourceDependencies) {}

  /** Checks a complete App body; `existing` is undefined on create (no agent can be its root yet). */
  private async settingsFrom(body: JsonObject, path: AppPath, existing: AppRecord | undefined): Promise<JsonObject> {
    requireText(body, 'displayName', 'app');
    if (body.rootAgent !== undefined) {
      const agentId = childIdIn(path, 'agents', body.rootAgent);
      if (agentId === undefined)
        invalid(
          'app.rootAgent',
          `app.rootAgent must be the name of an agent of this app: ${formatAppName(path)}/agents/{agent}.`,
        );
      const agent = existing ? await this.deps.store.agents.get(existing.id, agentId) : undefined;
      if (!agent || !isCesAgent(agent)) {
        invalid(
          'app.rootAgent',
          `app.rootAgent refers to agent '${String(body.rootAgent)}', which does not exist` +
            (existing ? '.' : ' (a new app has no agents yet: create the app, then its agents, then set rootAgent).'),
        );
      }
    }
    const zone = asObject(body.timeZoneSettings)?.timeZone;
    if (typeof zone === 'string' && !isTimeZone(zone))
      invalid(
        'app.timeZoneSettings.timeZone',
        `app.timeZoneSettings.timeZone must be an IANA time zone such as "Europe/Lisbon".`,
      );
    const temperature = asObject(body.modelSettings)?.temperature;
    if (typeof temperature === 'number' && !(temperature >= 0 && temperature <= 2))
      invalid('app.modelSettings.temperature', 'app.modelSettings.temperature must be between 0 and 2.');
    const seen = new Set<string>();
    (Array.isArray(body.variableDeclarations) ? body.variableDeclarations : []).forEach((entry, index) => {
      const name = requireText(asObject(entry) ?? {}, 'name', `app.variableDeclarations[${index}]`);
      const field = `app.variableDeclarations[${index}].name`;
      if (!VARIABLE_NAME.test(name))
        invalid(
          field,
          `${field} must be a letter or '_' followed by letters, digits or '_' (it is read as $context.variables.${name}).`,
        );
      if (seen.has(name)) invalid(field, `${field} repeats '${name}'.`);
      seen.add(name);
    });
    return body;
  }

  /** CreateAppRequest `{parent, appId?, app}` → Operation (done) whose response is the App. */
  async create(principal: Principal, request: unknown): Promise<JsonObject> {
    const { parent, appId, app } = parseCesRequest(createAppRequestSchema, request);
    const scope = parseLocationName(parent, 'parent');
    requireAppOperator(principal, 'Creating an app');
    const id = chooseResourceId(appId, 'appId', 'app');
    const settings = await this.settingsFrom(
      withoutFields(toJsonObject(app), MASK.outputOnly),
      { ...scope, app: id },
      undefined,
    );
    const record = newAppRecord(id, scope.project, scope.location, nowIso(), settings);
    try {
      await this.deps.store.apps.insert(record);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      // App ids are unique on the whole server (they name apps in the other APIs too), not per project.
      throw new BatonError(
        'app_exists',
        `An app with id '${id}' already exists on this server; choose another appId.`,
        { param: 'appId' },
      );
    }
    return doneOperation(scope, 'google.cloud.ces.v1.App', renderApp(record));
  }

  /** GetAppRequest `{name}` → App. */
  async get(principal: Principal, request: unknown): Promise<JsonObject> {
    const path = parseAppName(parseCesRequest(getAppRequestSchema, request).name, 'name');
    return renderApp(await resolveApp(this.deps.store, principal, path.project, path.location, path.app));
  }

  /** ListAppsRequest → `{apps, nextPageToken?}`: an operator key sees every app of the location, any other key its own. */
  async list(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = parseCesRequest(listAppsRequestSchema, request);
    const scope = parseLocationName(parsed.parent, 'parent');
    const apps = (await this.deps.store.apps.listByProject(scope.project)).filter(
      (app) => app.location === scope.location && canUse(principal, app),
    );
    return listResponse('apps', apps.map(renderApp), parsed, {
      fields: FILTER_FIELDS,
      codec: this.deps.keys.pageTokens,
    });
  }

  /** UpdateAppRequest `{app, updateMask?}` → App. The App etag is output only (as in CES), so it is not checked here. */
  async update(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = parseCesRequest(updateAppRequestSchema, request);
    const patch = toJsonObject(parsed.app);
    const path = parseAppName(patch.name, 'app.name');
    const current = await resolveApp(this.deps.store, principal, path.project, path.location, path.app);
    // From the rendered view, so apps made outside CES (no displayName yet) get their id as displayName.
    const currentBody = withoutFields(renderApp(current), MASK.outputOnly);
    const merged = applyFieldMask(
      currentBody,
      withoutFields(patch, MASK.outputOnly),
      parseFieldMask(parsed.updateMask),
      MASK,
    ) as JsonObject;
    const settings = await this.settingsFrom(withoutFields(merged, MASK.outputOnly), path, current);
    const updated = await this.deps.store.apps.updateSettings(current.id, current.revision, settings, nowIso());
    if (!updated) throw concurrentUpdate(formatAppName(path));
    return renderApp(updated);
  }

  /**
   * DeleteAppRequest `{name, etag?}` → Operation (done, Empty). Only an operator may, and not the
   * operator key's own app (the key would die mid-request and leave the server unmanaged).
   *
   * One short transaction tombstones the app with an `app.deletion_requested` audit event: from
   * its commit the name is a 404 (and free for a new app), the app's keys get 401 on every
   * replica and nothing new of it starts. Then this request purges its rows, inline and awaited,
   * batch by batch (`purgeApp`), and answers once the last row went with the `app.purged` audit
   * event: CES clients take a done Operation as the end of the work and never poll, so done means
   * the data is gone. If the purge fails or this process dies midway, the app stays deleted and
   * the sweeper's leader resumes the purge where it stopped (`DataLifecycle.startPurgesWhenDue`);
   * the answer is then the same done Operation, since the deletion itself is committed.
   */
  async delete(principal: Principal, request: unknown): Promise<JsonObject> {
    const { name, etag } = parseCesRequest(deleteAppRequestSchema, request);
    const path = parseAppName(name, 'name');
    requireAppOperator(principal, 'Deleting an app');
    const app = await resolveApp(this.deps.store, principal, path.project, path.location, path.app);
    const fullName = formatAppName(path);
    if (app.id === principal.appId) {
      throw new BatonError(
        'deleting_own_app',
        `'${fullName}' is the app of the operator key making this request; delete it with an operator key of another app.`,
      );
    }
    assertFreshEtag(etag, computeEtag([app.id, app.revision]), fullName, 'etag');
    const purge = { store: this.deps.store, clock: systemClock, newId };
    if (!(await requestAppDeletion(purge, app, principal.keyId))) {
      // Deleted meanwhile by another request: not found, as it would be a moment later...
      await resolveApp(this.deps.store, principal, path.project, path.location, path.app);
      // ...unless a new app took the name since: that one was not what the caller meant to delete.
      throw concurrentUpdate(fullName);
    }
    this.deps.keyCache.forgetApp(app.id);
    try {
      await purgeApp(purge, app.id);
    } catch (error) {
      this.deps.logger.warn({ err: error, appId: app.id }, 'app purge failed; the sweeper resumes it');
    }
    return doneOperation(path, 'google.protobuf.Empty');
  }
}
