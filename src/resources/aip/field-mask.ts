import { BatonError } from '../../domain/errors/baton-error.ts';

/** Which fields of a resource an update mask (AIP-134) may name. */
export interface MaskSpec {
  /** Top-level fields a client may change; paths below them (`mcpToolset.serverAddress`) too. */
  mutable: readonly string[];
  /** Fields the server sets; a mask naming them is accepted and they are left alone (AIP-203). */
  outputOnly: readonly string[];
  /** Sets of mutually exclusive top-level fields (proto oneofs). */
  unions: readonly (readonly string[])[];
}

const FIRST_SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Deeper segments may be map keys such as label names, which can start with a digit or hold '-'.
const DEEPER_SEGMENT = /^[A-Za-z0-9_-]+$/;
// Paths address plain JSON; these would reach an object's prototype instead.
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

type Json = Record<string, unknown>;

function fail(problem: string, path: string): never {
  throw new BatonError('invalid_update_mask', `Invalid updateMask: ${problem}.`, {
    param: 'updateMask',
    details: { path },
  });
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function splitPath(path: string): string[] {
  const segments = path.split('.');
  const valid = segments.every(
    (segment, index) => (index === 0 ? FIRST_SEGMENT : DEEPER_SEGMENT).test(segment) && !FORBIDDEN.has(segment),
  );
  if (!valid)
    fail(
      `'${path}' is not a field path; use camelCase field names joined by '.', e.g. 'displayName' or 'mcpToolset.serverAddress'`,
      path,
    );
  return segments;
}

/**
 * Reads `updateMask`: a comma-separated string of camelCase paths (the JSON form of FieldMask) or
 * an array. Null means no mask; `['*']` means full replacement. Callers decide what null means.
 */
export function parseFieldMask(mask: string | readonly string[] | undefined): string[] | null {
  if (mask === undefined) return null;
  const entries: unknown[] = typeof mask === 'string' ? mask.split(',') : [...mask];
  const paths: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string') fail(`every path must be a string, not ${JSON.stringify(entry)}`, String(entry));
    const path = entry.trim();
    if (path !== '' && !paths.includes(path)) paths.push(path);
  }
  if (paths.length === 0) return null;
  if (paths.includes('*')) {
    if (paths.length > 1)
      fail(
        `'*' (replace the whole resource) must be the only path, but the mask also names ${paths.filter((path) => path !== '*').join(', ')}`,
        '*',
      );
    return ['*'];
  }
  paths.forEach(splitPath);
  return paths;
}

function checkPaths(paths: readonly string[], spec: MaskSpec): string[][] {
  const targets: string[][] = [];
  for (const path of paths) {
    if (path === '*') fail(`'*' (replace the whole resource) must be the only path`, path);
    const segments = splitPath(path);
    const first = segments[0]!;
    if (spec.outputOnly.includes(first)) continue;
    if (!spec.mutable.includes(first)) {
      const camel = first.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
      const hint =
        camel !== first && spec.mutable.includes(camel)
          ? ` Did you mean '${[camel, ...segments.slice(1)].join('.')}'? Paths are camelCase.`
          : '';
      fail(
        `'${path}' is not a field you can update. Mutable fields: ${spec.mutable.join(', ')}.${hint}`.replace(
          /\.$/,
          '',
        ),
        path,
      );
    }
    targets.push(segments);
  }
  return targets;
}

function notAnObject(segments: readonly string[], depth: number): never {
  const path = segments.join('.');
  return fail(
    `'${path}' reaches into '${segments.slice(0, depth + 1).join('.')}', which is not an object; name '${segments.slice(0, depth + 1).join('.')}' instead`,
    path,
  );
}

function readAt(source: Json, segments: readonly string[]): unknown {
  let current: unknown = source;
  for (const [depth, segment] of segments.entries()) {
    if (current === undefined || current === null) return undefined;
    if (!isRecord(current)) notAnObject(segments, depth - 1);
    current = Object.hasOwn(current, segment) ? current[segment] : undefined;
  }
  return current;
}

/** Sets or (for undefined) deletes a path in `target`, creating parent objects as needed. */
function writeAt(target: Json, segments: readonly string[], value: unknown): void {
  let parent = target;
  for (const [depth, segment] of segments.slice(0, -1).entries()) {
    const child = Object.hasOwn(parent, segment) ? parent[segment] : undefined;
    if (child === undefined || child === null) {
      if (value === undefined) return; // nothing to delete below a missing parent
      parent[segment] = {};
    } else if (!isRecord(child)) {
      notAnObject(segments, depth);
    }
    parent = parent[segment] as Json;
  }
  const last = segments.at(-1)!;
  if (value === undefined) delete parent[last];
  else parent[last] = structuredClone(value);
}

/**
 * Applies an update to a copy of `current`: each masked path takes the patch's value, or is
 * removed when the patch lacks it (null counts as absent). Null or `['*']` replaces every mutable
 * field. Setting one member of a union removes the members the mask does not name.
 */
export function applyFieldMask(current: object, patch: object, paths: readonly string[] | null, spec: MaskSpec): Json {
  const result = structuredClone(current) as Json;
  const source = patch as Json;
  const full = paths === null || (paths.length === 1 && paths[0] === '*');
  const targets = full ? spec.mutable.map((field) => [field]) : checkPaths(paths, spec);
  for (const segments of targets) {
    const value = readAt(source, segments);
    writeAt(result, segments, value === null ? undefined : value);
  }
  if (full) return result;
  for (const union of spec.unions) {
    const named = union.filter((member) => targets.some((segments) => segments[0] === member));
    if (!named.some((member) => result[member] !== undefined)) continue;
    for (const member of union) if (!named.includes(member)) delete result[member];
  }
  return result;
}
