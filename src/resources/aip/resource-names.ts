import { BatonError } from '../../domain/errors/baton-error.ts';
import { randomBytes } from 'node:crypto';

/**
 * CES resource names (AIP-122): `projects/{project}/locations/{location}/apps/{app}/{collection}/{id}`.
 * Parsing is strict so a name that would address something else (an extra segment, an empty id)
 * is refused with the expected pattern instead of silently resolving to a neighbour.
 */

/** Ids Baton accepts for apps, agents, tools, toolsets and secrets (the same as agent and tool names). */
export const RESOURCE_ID_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
// Projects and locations are labels Baton only compares; keep them to URL-safe characters.
const SCOPE_PATTERN = /^[a-zA-Z0-9_.-]{1,128}$/;

export type ChildCollection = 'agents' | 'tools' | 'toolsets' | 'secrets';

export interface LocationPath {
  project: string;
  location: string;
}

export interface AppPath extends LocationPath {
  app: string;
}

export interface ChildPath extends AppPath {
  collection: ChildCollection;
  id: string;
}

const SINGULAR: Record<ChildCollection, string> = {
  agents: 'agent',
  tools: 'tool',
  toolsets: 'toolset',
  secrets: 'secret',
};

export function singularOf(collection: ChildCollection): string {
  return SINGULAR[collection];
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A server-chosen id (AIP-133): 12 lowercase letters and digits, starting with a letter. */
export function newResourceId(): string {
  const bytes = randomBytes(12);
  let id = ALPHABET[bytes[0]! % 26]!;
  for (const byte of bytes.subarray(1)) id += ALPHABET[byte % ALPHABET.length];
  return id;
}

export function formatLocationName(path: LocationPath): string {
  return `projects/${path.project}/locations/${path.location}`;
}

export function formatAppName(path: AppPath): string {
  return `${formatLocationName(path)}/apps/${path.app}`;
}

export function formatChildName(path: AppPath, collection: ChildCollection, id: string): string {
  return `${formatAppName(path)}/${collection}/${id}`;
}

function malformed(field: string, value: string, expected: string): never {
  const shown = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  throw new BatonError('invalid_resource_name', `'${shown}' is not a valid ${field}: expected ${expected}.`, {
    param: field,
  });
}

function split(name: unknown, field: string, expected: string, length: number): string[] {
  if (typeof name !== 'string' || name === '')
    throw new BatonError('missing_resource_name', `${field} is required: ${expected}.`, { param: field });
  const segments = name.split('/');
  if (segments.length !== length) malformed(field, name, expected);
  return segments;
}

function scopeOf(segments: readonly string[], name: string, field: string, expected: string): LocationPath {
  const [projects, project, locations, location] = segments;
  if (
    projects !== 'projects' ||
    locations !== 'locations' ||
    !SCOPE_PATTERN.test(project ?? '') ||
    !SCOPE_PATTERN.test(location ?? '')
  ) {
    malformed(field, name, expected);
  }
  return { project: project!, location: location! };
}

/** `projects/{project}/locations/{location}` */
export function parseLocationName(name: unknown, field: string): LocationPath {
  const expected = 'projects/{project}/locations/{location}';
  const segments = split(name, field, expected, 4);
  return scopeOf(segments, name as string, field, expected);
}

/** `projects/{project}/locations/{location}/apps/{app}` */
export function parseAppName(name: unknown, field: string): AppPath {
  const expected = 'projects/{project}/locations/{location}/apps/{app}';
  const segments = split(name, field, expected, 6);
  const scope = scopeOf(segments, name as string, field, expected);
  if (segments[4] !== 'apps' || !RESOURCE_ID_PATTERN.test(segments[5]!)) malformed(field, name as string, expected);
  return { ...scope, app: segments[5]! };
}

/** `projects/{project}/locations/{location}/apps/{app}/{collection}/{id}` */
export function parseChildName(name: unknown, collection: ChildCollection, field: string): ChildPath {
  const expected = `projects/{project}/locations/{location}/apps/{app}/${collection}/{${singularOf(collection)}}`;
  const segments = split(name, field, expected, 8);
  const scope = scopeOf(segments, name as string, field, expected);
  if (
    segments[4] !== 'apps' ||
    !RESOURCE_ID_PATTERN.test(segments[5]!) ||
    segments[6] !== collection ||
    !RESOURCE_ID_PATTERN.test(segments[7]!)
  ) {
    malformed(field, name as string, expected);
  }
  return { ...scope, app: segments[5]!, collection, id: segments[7]! };
}

/**
 * The id of a child of `app` named by `name`, or undefined when `name` is not such a name (another
 * app, another collection, malformed). Used for references inside bodies (`tools[]`, `rootAgent`).
 */
export function childIdIn(app: AppPath, collection: ChildCollection, name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const prefix = `${formatAppName(app)}/${collection}/`;
  if (!name.startsWith(prefix)) return undefined;
  const id = name.slice(prefix.length);
  return RESOURCE_ID_PATTERN.test(id) ? id : undefined;
}

/** The id a create request asks for, checked, or a generated one when absent (AIP-133). */
export function chooseResourceId(requested: string | undefined, field: string, what: string): string {
  if (requested === undefined || requested === '') return newResourceId();
  if (!RESOURCE_ID_PATTERN.test(requested)) {
    throw new BatonError(
      'invalid_resource_id',
      `${field} '${requested.slice(0, 100)}' is not a valid ${what} id: ids must match ^[a-zA-Z0-9_-]{1,64}$ ` +
        `(letters, digits, '_' and '-'). Omit ${field} to get a generated id.`,
      { param: field },
    );
  }
  return requested;
}
