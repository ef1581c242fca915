import { newId } from '../../domain/ids.ts';
import type { AppRecord, JsonObject } from '../../domain/records.ts';
import { DuplicateKeyError, type Store } from '../../store/store.ts';

/** New app records, and the default app every Baton has (where config-file agents and the first key live). */

export const DEFAULT_APP_NAME = 'default';
/** Where apps live in resource names unless created under another project: `projects/default/locations/global`. */
export const DEFAULT_PROJECT = 'default';
export const DEFAULT_LOCATION = 'global';

/** A new app with no settings yet. */
export function newAppRecord(
  name: string,
  project: string,
  location: string,
  now: string,
  settings: JsonObject = {},
): AppRecord {
  return { id: newId('app'), name, project, location, settings, revision: 1, createdAt: now, updatedAt: now };
}

/** Ensures the default app exists; returns its id. */
export async function ensureDefaultApp(store: Store): Promise<string> {
  const existing = await store.apps.getByName(DEFAULT_APP_NAME);
  if (existing) return existing.id;
  const app = newAppRecord(DEFAULT_APP_NAME, DEFAULT_PROJECT, DEFAULT_LOCATION, new Date().toISOString());
  try {
    await store.apps.insert(app);
  } catch (error) {
    // Another replica starting at the same moment created it first: use theirs.
    const created = error instanceof DuplicateKeyError ? await store.apps.getByName(DEFAULT_APP_NAME) : undefined;
    if (!created) throw error;
    return created.id;
  }
  return app.id;
}
