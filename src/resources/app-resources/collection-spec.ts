import type { ErrorCode } from '../../domain/errors/error-catalogue.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { MaskSpec } from '../aip/field-mask.ts';
import type { ReferencedCollection } from '../agents/agent-references.ts';
import type { RuleContext } from '../tools/common-rules.ts';

/**
 * What differs between the resources kept as JSON bodies in `store.resources` (tools, toolsets);
 * everything else — names, etags, masks, references, paging — is `AppResourceCrud`. The Tool and
 * Toolset specs are built from the tool-kind registry.
 */
export interface CollectionSpec {
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
