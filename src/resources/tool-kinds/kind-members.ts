import type { z } from 'zod';
import type { ToolKind } from './tool-kind.ts';

/** The wire members of `kinds`, each optional (they are alternatives of one oneof), in registry order. */
export function kindMembers(kinds: readonly ToolKind[]): Record<string, z.ZodType> {
  return Object.fromEntries(kinds.map((kind) => [kind.key, kind.schema.optional().describe(kind.description)]));
}
