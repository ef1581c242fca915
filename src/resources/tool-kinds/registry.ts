import type { AppResourceRecord, ClientToolDefinition, JsonObject } from '../../domain/records.ts';
import { asObject } from '../json-objects.ts';
import { clientFunctionKind } from './client-function.ts';
import { jsFunctionKind } from './js-function.ts';
import { mcpToolsetKind } from './mcp-toolset.ts';
import { openApiToolKind } from './open-api-tool.ts';
import { openApiToolsetKind } from './open-api-toolset.ts';
import type { KindSource, ToolKind, ToolResourceKind, ToolsetKind } from './tool-kind.ts';

/** A stored Tool or Toolset with the kind its body holds. */
export interface KindOf extends KindSource {
  kind: ToolKind;
}

/**
 * The tool kinds Baton knows, in the order of their oneof on the wire. The Tool and Toolset
 * services, their wire schemas, the app's tool provider and `:retrieveTools` all read it, so a
 * kind is added here and nowhere else.
 */
export class ToolKindRegistry {
  constructor(readonly kinds: readonly ToolKind[]) {
    const keys = kinds.map((kind) => kind.key);
    const repeated = keys.find((key, index) => keys.indexOf(key) !== index);
    // A body member names one kind: two kinds under one key would make a stored body ambiguous.
    if (repeated !== undefined) throw new Error(`Tool kind '${repeated}' is registered twice.`);
  }

  /** The kinds of Tool resources. */
  get tools(): readonly ToolResourceKind[] {
    return this.kinds.filter((kind): kind is ToolResourceKind => kind.collection === 'tools');
  }

  /** The kinds of Toolset resources. */
  get toolsets(): readonly ToolsetKind[] {
    return this.kinds.filter((kind): kind is ToolsetKind => kind.collection === 'toolsets');
  }

  /** The body members of a collection's kinds (its oneof's supported alternatives). */
  keys(collection: 'tools' | 'toolsets'): string[] {
    return (collection === 'tools' ? this.tools : this.toolsets).map((kind) => kind.key);
  }

  /** The kind a Tool or Toolset body holds: the first of the collection whose member it sets. */
  memberOf(collection: string, body: JsonObject): { kind: ToolKind; member: JsonObject } | undefined {
    const kinds = collection === 'tools' ? this.tools : collection === 'toolsets' ? this.toolsets : [];
    for (const kind of kinds) {
      const member = asObject(body[kind.key]);
      if (member) return { kind, member };
    }
    return undefined;
  }

  /** The kind of a stored resource, with its member. */
  kindOf(record: AppResourceRecord): KindOf | undefined {
    const found = this.memberOf(record.collection, record.body);
    return found && { ...found, record };
  }

  /** The function a Tool resource offers the model when the client runs it; undefined for other kinds. */
  clientDefinition(record: AppResourceRecord): ClientToolDefinition | undefined {
    const found = this.kindOf(record);
    return found?.kind.executor === 'client' ? found.kind.definition(found) : undefined;
  }

  /** A registry with `kind` added (after the others). */
  with(kind: ToolKind): ToolKindRegistry {
    return new ToolKindRegistry([...this.kinds, kind]);
  }
}

/** Every kind Baton runs. Adding one: its module, and a line here. */
export const TOOL_KINDS = new ToolKindRegistry([
  clientFunctionKind,
  openApiToolKind,
  jsFunctionKind,
  mcpToolsetKind,
  openApiToolsetKind,
]);
