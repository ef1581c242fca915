import { BatonError } from '../../domain/errors/baton-error.ts';
import type { Principal } from '../../domain/principal.ts';
import type { AppRecord } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';

/** `projects/{project}/locations/{location}` */
export function locationName(project: string, location: string): string {
  return `projects/${project}/locations/${location}`;
}

/** The app's resource name, `projects/{p}/locations/{l}/apps/{name}`. */
export function appResourceName(app: Pick<AppRecord, 'project' | 'location' | 'name'>): string {
  return `${locationName(app.project, app.location)}/apps/${app.name}`;
}

/**
 * Who may use which app. A key belongs to one app and may always use it; an admin key may also
 * use (and create, and delete) every app of its own project. Anything else is refused.
 */
export async function principalProject(store: Store, principal: Principal): Promise<AppRecord> {
  const home = await store.apps.get(principal.appId);
  if (!home) throw new BatonError('app_deleted', `The app of this API key no longer exists; use another key.`);
  return home;
}

export function canUse(principal: Principal, home: AppRecord, app: AppRecord): boolean {
  return principal.appId === app.id || (principal.role === 'admin' && home.project === app.project);
}

/** Checks that the caller may list (or, with `write`, create and delete) apps in `project`. */
export async function assertProjectAccess(
  store: Store,
  principal: Principal,
  project: string,
  write: boolean,
): Promise<AppRecord> {
  const home = await principalProject(store, principal);
  if (home.project !== project) {
    throw new BatonError(
      'project_access_denied',
      `This API key belongs to project '${home.project}', not '${project}'; use parent '${locationName(home.project, home.location)}' ` +
        `or a key of that project.`,
      { param: 'parent' },
    );
  }
  if (write && principal.role !== 'admin') {
    throw new BatonError(
      'admin_key_required',
      `Creating or deleting apps needs an admin API key of project '${project}'.`,
    );
  }
  return home;
}

/** Resolves `projects/{p}/locations/{l}/apps/{a}` to an app the caller may use, or NOT_FOUND / PERMISSION_DENIED. */
export async function resolveApp(
  store: Store,
  principal: Principal,
  project: string,
  location: string,
  appId: string,
): Promise<AppRecord> {
  const app = await store.apps.getByName(appId);
  const name = `${locationName(project, location)}/apps/${appId}`;
  if (!app || app.project !== project || app.location !== location) {
    throw new BatonError(
      'app_not_found',
      `App '${name}' was not found. List apps with GET /v1/${locationName(project, location)}/apps.`,
    );
  }
  const home = await principalProject(store, principal);
  if (!canUse(principal, home, app)) {
    throw new BatonError(
      'app_access_denied',
      `This API key belongs to another app and cannot use '${name}'; use a key of that app or an admin key of project '${app.project}'.`,
    );
  }
  return app;
}
