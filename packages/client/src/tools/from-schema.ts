/**
 * `FromSchema<S>`: the TypeScript type of values a JSON Schema describes, so a tool handler's
 * input is typed from the same schema the model is given, with nothing to keep in sync. Covers
 * what tool schemas use: object (properties, required, additionalProperties), string, number,
 * integer, boolean, null, enum, const, arrays (and tuples), anyOf/oneOf, `type` lists such as
 * `['string', 'null']`, and CES's upper-case type names. Anything else is `unknown`, never a lie.
 */

/** A JSON Schema as written in code (`as const` or a `const` type parameter makes it readonly). */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: { readonly [key: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly items?: JsonSchema | readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly description?: string;
  readonly [keyword: string]: unknown;
}

/** Flattens intersections so editors show `{ a: string; b?: number }`. */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

export type FromSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly anyOf: readonly (infer A)[] }
      ? FromSchema<A>
      : S extends { readonly oneOf: readonly (infer A)[] }
        ? FromSchema<A>
        : S extends { readonly type: readonly (infer T)[] }
          ? FromType<T, S>
          : S extends { readonly type: infer T }
            ? FromType<T, S>
            : S extends { readonly properties: object }
              ? FromObject<S>
              : unknown;

type FromType<T, S> = T extends 'string' | 'STRING'
  ? string
  : T extends 'number' | 'integer' | 'NUMBER' | 'INTEGER'
    ? number
    : T extends 'boolean' | 'BOOLEAN'
      ? boolean
      : T extends 'null' | 'NULL'
        ? null
        : T extends 'array' | 'ARRAY'
          ? FromArray<S>
          : T extends 'object' | 'OBJECT'
            ? FromObject<S>
            : unknown;

type FromArray<S> = S extends { readonly items: infer I }
  ? I extends readonly unknown[]
    ? { -readonly [K in keyof I]: FromSchema<I[K]> }
    : FromSchema<I>[]
  : unknown[];

type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

/** Extra keys: none when `additionalProperties: false`, typed when it is a schema, else unknown. */
type Additional<S> = S extends { readonly additionalProperties: false }
  ? unknown
  : S extends { readonly additionalProperties: infer A extends object }
    ? { [key: string]: FromSchema<A> }
    : S extends { readonly properties: object }
      ? unknown
      : { [key: string]: unknown };

type FromObject<S> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromSchema<P[K]>;
      } & Additional<S>
    >
  : Additional<S>;
