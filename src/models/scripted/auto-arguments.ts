import {
  findBooleans,
  findDates,
  findEmails,
  findIds,
  findNumbers,
  findProperNames,
  findQuoted,
  findUrls,
  tokenize,
  truncate,
  wordsMatch,
} from './text-analysis.ts';
import type { FoundNumber, FoundValue, WordToken } from './text-analysis.ts';
import type { JsonSchema, JsonSchemaDefinition } from './json-schema.ts';
import {
  itemsOf,
  matchesStringConstraints,
  numberPlaceholder,
  orderedProperties,
  resolvePointer,
  schemaType,
  stringPlaceholder,
  withinBounds,
} from './json-schema-reading.ts';
import { CURRENCY_WORDS, fanOutKey, propertyWords, singular, stringKind, type StringKind } from './property-kinds.ts';

/**
 * Builds tool-call arguments from a tool's JSON Schema and a user message, for `scripted:auto`.
 *
 * Per property (required ones first; optional ones only when the message provides a value):
 *   1. a value found in the message — see `findValue` for the per-type rules;
 *   2. else `default`, else the first `enum` value, else the first of `examples`/`example`;
 *   3. else a typed placeholder: `"<name>"` (or a valid sample for email/uri/date formats),
 *      0 (clamped to minimum/maximum), false, [] (or `minItems` placeholders), and for objects
 *      the required sub-properties filled recursively.
 * Found values are consumed, so "$20 for 3 items" gives different numbers to two number fields.
 */

export interface ArgumentSource {
  /** The text values are taken from: the user message, or the clause of it that this call serves. */
  readonly text: string;
  /** Lower-case words of the tool's own name; never mistaken for proper names ("Email Bob"). */
  readonly vocabulary: ReadonlySet<string>;
}

/** A property whose value the message lists several times ("Paris and Lisbon"): one call per value. */
export interface FanOut {
  readonly property: string;
  readonly values: readonly FoundValue<unknown>[];
}

export interface BuildOptions {
  /** A value already chosen for one property (a fan-out value); its text range is not reused. */
  readonly preset?: { readonly property: string; readonly value: FoundValue<unknown> };
  /**
   * Only values found in the text, no fallbacks and no free-text fields: used for a clause of a
   * longer message, whose findings are laid over the arguments built from the whole message.
   */
  readonly foundOnly?: boolean;
}

export function buildArguments(
  schema: JsonSchema,
  source: ArgumentSource,
  options: BuildOptions = {},
): Record<string, unknown> {
  const builder = new ArgumentBuilder(schema, source, options.foundOnly ?? false);
  return builder.buildRoot(options.preset);
}

/**
 * The first top-level property for which the message holds two or more distinct values of the
 * property's kind. Skipped when another property has the same kind (origin/destination must not
 * be fanned out) or an array property can take the list itself.
 */
export function findFanOut(schema: JsonSchema, source: ArgumentSource): FanOut | undefined {
  const builder = new ArgumentBuilder(schema, source, false);
  return builder.findFanOut();
}

interface Range {
  readonly start: number;
  readonly end: number;
}

class ArgumentBuilder {
  private readonly tokens: WordToken[];
  private readonly used: Range[] = [];

  constructor(
    private readonly root: JsonSchema,
    private readonly source: ArgumentSource,
    private readonly foundOnly: boolean,
  ) {
    this.tokens = tokenize(source.text);
  }

  buildRoot(preset?: { property: string; value: FoundValue<unknown> }): Record<string, unknown> {
    const schema = this.resolve(this.root);
    if (preset !== undefined) this.used.push(preset.value);
    const result = this.buildObject(schema, false, preset) ?? {};
    return result;
  }

  findFanOut(): FanOut | undefined {
    const schema = this.resolve(this.root);
    const properties = orderedProperties(schema);
    const kindsInUse = new Map<string, number>();
    const arrayKinds = new Set<string>();
    for (const [name, definition] of properties) {
      const property = this.resolve(definition);
      const type = schemaType(property);
      if (type === 'array') {
        const items = this.resolve(itemsOf(property));
        arrayKinds.add(items.enum !== undefined ? 'enum' : stringKind(singular(name), items));
      } else if (type === 'string' && property.enum === undefined) {
        const kind = fanOutKey(stringKind(name, property));
        kindsInUse.set(kind, (kindsInUse.get(kind) ?? 0) + 1);
      }
    }

    for (const [name, definition] of properties) {
      const property = this.resolve(definition);
      if (schemaType(property) !== 'string') continue;
      let values: FoundValue<unknown>[];
      if (property.enum !== undefined) {
        if (arrayKinds.has('enum')) continue;
        values = this.findEnum(property.enum);
      } else {
        const kind = stringKind(name, property);
        if ((kindsInUse.get(fanOutKey(kind)) ?? 0) > 1 || arrayKinds.has(kind)) continue;
        values =
          kind === 'text' || kind === 'plain' ? findQuoted(this.source.text) : this.stringCandidates(kind, property);
      }
      const distinct = uniqueBy(values, (found) => JSON.stringify(found.value));
      if (distinct.length >= 2) return { property: name, values: distinct };
    }
    return undefined;
  }

  /** Fills an object schema; with `onlyIfFound`, returns undefined unless some value came from the text. */
  private buildObject(
    schema: JsonSchema,
    onlyIfFound: boolean,
    preset?: { property: string; value: FoundValue<unknown> },
  ): Record<string, unknown> | undefined {
    const required = new Set(schema.required ?? []);
    const result: Record<string, unknown> = {};
    let foundAny = false;
    for (const [name, definition] of orderedProperties(schema)) {
      const property = this.resolve(definition);
      if (preset !== undefined && preset.property === name) {
        result[name] = preset.value.value;
        foundAny = true;
        continue;
      }
      if (this.foundOnly && schemaType(property) === 'string' && stringKind(name, property) === 'text') continue;
      const found = this.findValue(name, property);
      if (found !== undefined) {
        result[name] = found;
        foundAny = true;
      } else if (required.has(name) && !this.foundOnly) {
        result[name] = this.fallback(name, property);
      }
    }
    return onlyIfFound && !foundAny ? undefined : result;
  }

  /**
   * A value for the property taken from the text, or undefined when the text has none:
   * - `const` as is; `enum`: the first enum value mentioned (loosely: "refunds" → refund);
   * - numbers: "$500", "1,200", "12.5" — money-like fields prefer currency-marked numbers, then
   *   the number nearest to the field's name/description words; integers skip decimals;
   * - booleans: yes/no/true/false nearest to the field's words;
   * - strings by field kind (name/format): email, url, date, id ("ORD-12345", "#4411"), proper
   *   names for city/name/location-like fields, then a quoted string, and for free-text fields
   *   (reason, description, message, query, text…) the request itself;
   * - arrays: every matching value of the item kind; objects: recursively, if anything was found.
   */
  private findValue(name: string, schema: JsonSchema): unknown {
    if (schema.const !== undefined) return schema.const;
    if (schema.enum !== undefined) return this.findEnum(schema.enum)[0]?.value;
    switch (schemaType(schema)) {
      case 'string':
        return this.findString(name, schema);
      case 'number':
        return this.findNumber(name, schema, false);
      case 'integer':
        return this.findNumber(name, schema, true);
      case 'boolean':
        return this.nearest(findBooleans(this.source.text), this.anchors(name, schema))?.value;
      case 'array':
        return this.findArray(name, schema);
      case 'object':
        return this.buildObject(schema, true);
      default:
        return undefined;
    }
  }

  private findString(name: string, schema: JsonSchema): string | undefined {
    const kind = stringKind(name, schema);
    const anchors = this.anchors(name, schema);
    const accept = (value: string): boolean => matchesStringConstraints(value, schema);

    if (kind !== 'text' && kind !== 'plain') {
      const candidates = this.stringCandidates(kind, schema).filter((found) => accept(found.value));
      const picked = this.nearest(candidates, anchors);
      if (picked !== undefined) return this.take(picked).value;
    }
    const quoted = this.nearest(
      findQuoted(this.source.text).filter((found) => this.isFree(found) && accept(found.value)),
      anchors,
    );
    if (quoted !== undefined) return this.take(quoted).value;
    // Free-text fields ("reason", "query"…) get the request itself: the closest thing a model
    // would write there, and always a valid string.
    if (kind === 'text') {
      const text =
        schema.maxLength === undefined ? this.source.text.trim() : truncate(this.source.text, schema.maxLength - 1);
      if (text !== '' && accept(text)) return text;
    }
    return undefined;
  }

  private stringCandidates(kind: StringKind, schema: JsonSchema): FoundValue<string>[] {
    const text = this.source.text;
    let found: FoundValue<string>[];
    switch (kind) {
      case 'email':
        found = findEmails(text);
        break;
      case 'url':
        found = findUrls(text);
        break;
      case 'date':
        found = findDates(text);
        break;
      case 'id':
        found = findIds(text);
        break;
      case 'name':
        found = findProperNames(text, this.source.vocabulary);
        break;
      default:
        found = [];
    }
    return found.filter((value) => this.isFree(value) && matchesStringConstraints(value.value, schema));
  }

  private findNumber(name: string, schema: JsonSchema, integer: boolean): number | undefined {
    const words = propertyWords(name, schema);
    const wantsCurrency = words.some((word) => CURRENCY_WORDS.has(word));
    const anchors = this.anchors(name, schema);
    const candidates = findNumbers(this.source.text).filter(
      (found) => this.isFree(found) && (!integer || found.integer) && withinBounds(found.value, schema),
    );
    const ranked = candidates
      .map((found, order) => ({
        found,
        key: [found.currency === wantsCurrency ? 0 : 1, this.distance(found, anchors), order] as const,
      }))
      .sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2]);
    const best = ranked[0]?.found;
    return best === undefined ? undefined : this.take<number, FoundNumber>(best).value;
  }

  private findArray(name: string, schema: JsonSchema): unknown[] | undefined {
    const items = this.resolve(itemsOf(schema));
    let values: unknown[];
    if (items.enum !== undefined) {
      values = this.findEnum(items.enum).map((found) => found.value);
    } else {
      const type = schemaType(items);
      if (type === 'string') {
        const kind = stringKind(singular(name), items);
        const found =
          kind === 'text' || kind === 'plain' ? findQuoted(this.source.text) : this.stringCandidates(kind, items);
        values = uniqueBy(
          found.filter((value) => this.isFree(value)),
          (value) => value.value,
        ).map((value) => this.take(value).value);
      } else if (type === 'number' || type === 'integer') {
        values = findNumbers(this.source.text)
          .filter(
            (found) => this.isFree(found) && (type === 'number' || found.integer) && withinBounds(found.value, items),
          )
          .map((found) => this.take<number, FoundNumber>(found).value);
      } else {
        values = [];
      }
    }
    if (schema.maxItems !== undefined) values = values.slice(0, schema.maxItems);
    return values.length > 0 && values.length >= (schema.minItems ?? 0) ? values : undefined;
  }

  /**
   * Enum values mentioned in the text, in order of appearance. Single words match loosely
   * ("refunds", "cancel" for "cancellation"); `next_day` also matches "next day".
   */
  private findEnum(values: readonly unknown[]): FoundValue<unknown>[] {
    const lower = this.source.text.toLowerCase();
    const found: FoundValue<unknown>[] = [];
    for (const value of values) {
      if (typeof value === 'number') {
        const hit = findNumbers(this.source.text).find((number) => number.value === value);
        if (hit !== undefined) found.push({ value, start: hit.start, end: hit.end });
        continue;
      }
      if (typeof value !== 'string' || value === '') continue;
      const phrase = value.toLowerCase().replace(/[_-]+/g, ' ').trim();
      const words = phrase.split(/\s+/);
      if (words.length > 1) {
        const at = lower.search(new RegExp(`\\b${escapeRegExp(phrase)}\\b`));
        if (at >= 0) found.push({ value, start: at, end: at + phrase.length });
        continue;
      }
      const token = this.tokens.find((t) => t.lower === phrase) ?? this.tokens.find((t) => wordsMatch(t.lower, phrase));
      if (token !== undefined) found.push({ value, start: token.start, end: token.end });
    }
    return found.sort((a, b) => a.start - b.start);
  }

  private fallback(name: string, schema: JsonSchema): unknown {
    if (schema.default !== undefined) return schema.default;
    if (schema.const !== undefined) return schema.const;
    if (schema.enum !== undefined && schema.enum.length > 0) return schema.enum[0];
    const examples: unknown = schema.examples;
    if (Array.isArray(examples) && examples.length > 0) return examples[0];
    if (examples !== undefined && examples !== null) return examples;
    const example = (schema as Record<string, unknown>)['example'];
    if (example !== undefined) return example;
    return this.placeholder(name, schema);
  }

  private placeholder(name: string, schema: JsonSchema): unknown {
    switch (schemaType(schema)) {
      case 'number':
      case 'integer':
        return numberPlaceholder(schema);
      case 'boolean':
        return false;
      case 'null':
        return null;
      case 'array': {
        const items = this.resolve(itemsOf(schema));
        return Array.from({ length: schema.minItems ?? 0 }, () => this.fallback(singular(name), items));
      }
      case 'object':
        return this.buildObject(schema, false) ?? {};
      default:
        return stringPlaceholder(name, schema);
    }
  }

  /** Positions of words naming the property (from its name and description) in the text. */
  private anchors(name: string, schema: JsonSchema): number[] {
    const words = propertyWords(name, schema);
    return this.tokens
      .filter((token) => words.some((word) => wordsMatch(token.lower, word)))
      .map((token) => token.index);
  }

  /** Word distance from a value to the nearest anchor; 0 when there are no anchors (order decides). */
  private distance(found: Range, anchors: readonly number[]): number {
    if (anchors.length === 0) return 0;
    const index = this.tokens.filter((token) => token.start < found.start).length;
    return Math.min(...anchors.map((anchor) => Math.abs(anchor - index)));
  }

  private nearest<T extends Range>(candidates: readonly T[], anchors: readonly number[]): T | undefined {
    let best: T | undefined;
    let bestDistance = Infinity;
    for (const candidate of candidates) {
      const distance = this.distance(candidate, anchors);
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return best;
  }

  private isFree(range: Range): boolean {
    return !this.used.some((used) => range.start < used.end && used.start < range.end);
  }

  private take<V, T extends FoundValue<V> = FoundValue<V>>(found: T): T {
    this.used.push(found);
    return found;
  }

  /** Follows local `$ref`s and picks the first non-null branch of unions, so callers see one schema. */
  private resolve(definition: JsonSchemaDefinition | undefined, depth = 0): JsonSchema {
    if (definition === undefined || typeof definition === 'boolean' || depth > 16) return {};
    if (definition.$ref !== undefined) {
      const target = resolvePointer(this.root, definition.$ref);
      const { $ref: _ref, ...rest } = definition;
      return { ...this.resolve(target, depth + 1), ...rest };
    }
    const union = definition.anyOf ?? definition.oneOf;
    if (union !== undefined && definition.type === undefined) {
      const branch = union.find((option) => typeof option !== 'boolean' && option.type !== 'null') ?? union[0];
      const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = definition;
      return { ...this.resolve(branch, depth + 1), ...rest };
    }
    if (definition.allOf !== undefined && definition.type === undefined) {
      const merged = definition.allOf.reduce<JsonSchema>((acc, part) => {
        const resolved = this.resolve(part, depth + 1);
        return {
          ...acc,
          ...resolved,
          properties: { ...acc.properties, ...resolved.properties },
          required: [...(acc.required ?? []), ...(resolved.required ?? [])],
        };
      }, {});
      const { allOf: _allOf, ...rest } = definition;
      return { ...merged, ...rest };
    }
    return definition;
  }
}

function uniqueBy<T>(items: readonly T[], key: (item: T) => unknown): T[] {
  const seen = new Set<unknown>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
