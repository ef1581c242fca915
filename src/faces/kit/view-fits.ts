import type { z } from 'zod';

/** A type with its literals widened (`'thread'` → string): views build objects whose tags TypeScript widens. */
type Widened<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer Item)[]
        ? Widened<Item>[]
        : T extends object
          ? { [Key in keyof T]: Widened<T[Key]> }
          : T;

/**
 * Holds a view to the schema the API document shows for it, at compile time: `view` must return
 * what `schema` accepts (literals aside), so a field renamed in, dropped from or retyped in the view
 * without its schema is a type error. Does nothing at run time; the contract test
 * (test/server/openapi-contract.test.ts) checks real answers against the document.
 */
export function viewFits<Schema extends z.ZodType>(
  _schema: Schema,
  _view: (...args: never[]) => Widened<z.input<Schema>>,
): void {}
