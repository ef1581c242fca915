import { splitIdentifier, STOP_WORDS } from './text-analysis.ts';
import type { JsonSchema } from './json-schema.ts';

/** What kind of string a property holds, judged from its format, name and description. */
export type StringKind = 'email' | 'url' | 'date' | 'id' | 'name' | 'text' | 'plain';

const KIND_WORDS: ReadonlyArray<readonly [StringKind, ReadonlySet<string>]> = [
  ['email', new Set(['email', 'emails', 'mail'])],
  ['url', new Set(['url', 'urls', 'link', 'links', 'website', 'uri', 'href', 'homepage'])],
  ['date', new Set(['date', 'dates', 'day', 'deadline', 'birthday', 'datetime'])],
  ['id', new Set(['id', 'ids', 'code', 'sku', 'ref', 'reference', 'number', 'key', 'token', 'uuid', 'tracking'])],
  [
    'name',
    new Set([
      'city',
      'cities',
      'name',
      'names',
      'location',
      'locations',
      'country',
      'countries',
      'place',
      'destination',
      'origin',
      'town',
      'region',
      'person',
      'company',
      'recipient',
      'customer',
      'airport',
      'venue',
      'team',
      'author',
      'user',
      'owner',
      'assignee',
      'contact',
    ]),
  ],
  [
    'text',
    new Set([
      'reason',
      'description',
      'message',
      'query',
      'text',
      'content',
      'body',
      'note',
      'notes',
      'comment',
      'comments',
      'prompt',
      'question',
      'summary',
      'details',
      'explanation',
      'instructions',
      'search',
      'q',
      'input',
      'justification',
      'topic',
      'subject',
      'request',
    ]),
  ],
];

/** Words that mark a numeric field as money, so "$500" wins over other numbers. */
export const CURRENCY_WORDS: ReadonlySet<string> = new Set([
  'amount',
  'price',
  'cost',
  'total',
  'usd',
  'eur',
  'gbp',
  'dollar',
  'dollars',
  'budget',
  'fee',
  'payment',
  'salary',
  'balance',
  'refund',
  'sum',
  'charge',
  'money',
  'currency',
  'credit',
]);

/** Free-text and unclassified strings both take quoted values, so they compete for them. */
export function fanOutKey(kind: StringKind): string {
  return kind === 'text' || kind === 'plain' ? 'free' : kind;
}

export function stringKind(name: string, schema: JsonSchema): StringKind {
  switch (schema.format) {
    case 'email':
    case 'idn-email':
      return 'email';
    case 'uri':
    case 'url':
    case 'iri':
      return 'url';
    case 'date':
    case 'date-time':
      return 'date';
    case 'uuid':
      return 'id';
  }
  const words = splitIdentifier(name);
  for (const [kind, vocabulary] of KIND_WORDS) {
    if (words.some((word) => vocabulary.has(word))) return kind;
  }
  return 'plain';
}

/** Words that may appear near the property's value in a request: its name and description. */
export function propertyWords(name: string, schema: JsonSchema): string[] {
  const words = [
    ...splitIdentifier(name),
    ...splitIdentifier(schema.description ?? ''),
    ...splitIdentifier(schema.title ?? ''),
  ];
  return [...new Set(words.filter((word) => !STOP_WORDS.has(word) && word.length > 1))];
}

export function singular(name: string): string {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (name.endsWith('s') && !name.endsWith('ss')) return name.slice(0, -1);
  return name;
}
