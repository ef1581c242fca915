import { OpenApiLimitError, type OpenApiLimits } from './openapi-limits.ts';
import type { JsonObject } from './openapi-types.ts';

/**
 * What dereferencing a document would produce, measured on the document as written: how many
 * `$ref`s get replaced (each time one is reached, since the parser copies its target's contents
 * there) and how deep the result nests. The parser dereferences with `circular: 'ignore'`: a
 * reference back into a target being expanded stays a `$ref`, so it counts as a leaf here too.
 *
 * Each reference target is measured once and remembered, so the cost is linear in the document
 * even when its expansion is exponential; the first limit passed ends the walk.
 */

export interface Expansion {
  /** `$ref`s replaced by dereferencing. */
  readonly refs: number;
  /** Nesting depth of the dereferenced document (a scalar is 0, `{}` is 1). */
  readonly depth: number;
}

type Limits = Pick<OpenApiLimits, 'maxRefs' | 'maxDepth'>;

/** Throws OpenApiLimitError naming `max_refs` or `max_depth` when the expansion passes a limit. */
export function measureExpansion(document: JsonObject, limits: Limits): Expansion {
  return new ExpansionWalk(document, limits).measure(document, 1);
}

class ExpansionWalk {
  private readonly known = new Map<string, Expansion>();
  /** The objects being walked, outermost first: a reference to one of them is recursive. */
  private readonly onPath = new Set<object>();

  constructor(
    private readonly document: JsonObject,
    private readonly limits: Limits,
  ) {}

  /** `level` is the node's own depth in the expansion: checked on the way down, so the walk's stack stays bounded. */
  measure(node: unknown, level: number): Expansion {
    if (typeof node !== 'object' || node === null) return { refs: 0, depth: 0 };
    const ref = Array.isArray(node) ? undefined : (node as JsonObject).$ref;
    if (typeof ref === 'string') return this.reference(ref, level);
    this.checkDepth(level);
    let refs = 0;
    let depth = 0;
    this.onPath.add(node);
    try {
      for (const child of Array.isArray(node) ? node : Object.values(node)) {
        const inner = this.measure(child, level + 1);
        refs = this.checkRefs(refs + inner.refs);
        depth = Math.max(depth, inner.depth);
      }
    } finally {
      this.onPath.delete(node);
    }
    return { refs, depth: this.checkDepth(depth + 1) };
  }

  private reference(ref: string, level: number): Expansion {
    // A recursive reference stays a `$ref` object; so, for the parser to refuse later, does one
    // that points outside the document or to nothing: none of them expands.
    const found = resolvePointer(this.document, ref);
    if (found === undefined || (typeof found === 'object' && found !== null && this.onPath.has(found))) {
      return { refs: 0, depth: 1 };
    }
    let target = this.known.get(ref);
    if (!target) {
      target = this.measure(found, level);
      this.known.set(ref, target);
    }
    this.checkDepth(level - 1 + target.depth);
    return { refs: this.checkRefs(1 + target.refs), depth: target.depth };
  }

  private checkRefs(refs: number): number {
    if (refs > this.limits.maxRefs) {
      throw new OpenApiLimitError(
        'max_refs',
        `the OpenAPI document's $refs expand more than ${this.limits.maxRefs} times when dereferenced ` +
          '(schemas that reference each other repeatedly); reference fewer schemas, or fewer times each',
      );
    }
    return refs;
  }

  private checkDepth(depth: number): number {
    if (depth > this.limits.maxDepth) {
      throw new OpenApiLimitError(
        'max_depth',
        `the OpenAPI document nests deeper than ${this.limits.maxDepth} levels once its $refs are expanded; flatten its schemas`,
      );
    }
    return depth;
  }
}

/**
 * The node a local reference (`#/components/schemas/Pet`) points to, following references met
 * on the way as the parser does (a bounded number of them), or undefined.
 */
function resolvePointer(document: JsonObject, ref: string, hops = 0): unknown {
  if (!ref.startsWith('#') || hops > 32) return undefined;
  const pointer = ref.slice(1);
  if (pointer === '') return document;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const inner =
      isObject(node) && typeof node.$ref === 'string' ? resolvePointer(document, node.$ref, hops + 1) : node;
    const key = decodeToken(raw);
    if (Array.isArray(inner)) node = /^\d+$/.test(key) ? inner[Number(key)] : undefined;
    else if (isObject(inner) && Object.hasOwn(inner, key)) node = inner[key];
    else return undefined;
  }
  return node;
}

function decodeToken(token: string): string {
  let decoded = token;
  try {
    decoded = decodeURIComponent(token);
  } catch {
    // A malformed escape is kept as written; the parser reports the pointer if it leads nowhere.
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
