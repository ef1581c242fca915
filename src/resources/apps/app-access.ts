import { requireCapability, roleAllows } from '../../domain/access.ts';
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
 * Tenancy: a key belongs to one app and sees only that app; only an operator key (the server's
 * own, `BATON_ADMIN_KEY`, and keys an operator mints with that role) reaches every app. Another
 * app is answered as not found, never as forbidden, so a key learns nothing of other tenants.
 */
export function canUse(principal: Principal, app: AppRecord): boolean {
  return principal.appId === app.id || roleAllows(principal.role, 'operate');
}

function appNotFound(name: string, project: string, location: string): BatonError {
  return new BatonError(
    'app_not_found',
    `App '${name}' was not found. List the apps this key can use with GET /v1/${locationName(project, location)}/apps.`,
  );
}

/** Creating and deleting apps is an operator's: an app's own keys cannot make or remove tenants. */
export function requireAppOperator(principal: Principal, action: string): void {
  requireCapability(principal, 'operate', action);
}

/** Resolves `projects/{p}/locations/{l}/apps/{a}` to an app the caller may use, or NOT_FOUND. */
export async function resolveApp(
  store: Store,
  principal: Principal,
  project: string,
  location: string,
  appId: string,
): Promise<AppRecord> {
  const app = await store.apps.getByName(appId);
  const name = `${locationName(project, location)}/apps/${appId}`;
  if (!app || app.project !== project || app.location !== location || !canUse(principal, app)) {
    throw appNotFound(name, project, location);
  }
  return app;
}
