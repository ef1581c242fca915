/** A parsed AIP-160 filter: what `parseFilter` builds and `matchesFilter` evaluates. */

export type FilterOperator = '=' | '!=' | '<' | '<=' | '>' | '>=' | ':';

export type FilterValue =
  /** `wildcard` holds the literal pieces between unescaped `*`s, or null when there are none. */
  | { kind: 'string'; text: string; wildcard: readonly string[] | null }
  | { kind: 'number'; text: string; value: number }
  | { kind: 'boolean'; text: string; value: boolean };

export type FilterExpression =
  | { type: 'all' }
  | { type: 'and'; operands: FilterExpression[] }
  | { type: 'or'; operands: FilterExpression[] }
  | { type: 'not'; operand: FilterExpression }
  | { type: 'compare'; field: string; operator: FilterOperator; value: FilterValue };
