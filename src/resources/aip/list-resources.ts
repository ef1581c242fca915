import { BatonError } from '../../domain/errors/baton-error.ts';
import { z } from 'zod';
import type { JsonObject } from '../../domain/records.ts';
import { filterFields, matchesFilter, parseFilter, type FilterExpression } from './filter.ts';
import { parseOrderBy, sortKeyFor } from './order-by.ts';
import { readPageSize, type PageTokenCodec } from './page-token.ts';
import { paginate } from './paginate.ts';

/**
 * The one List implementation (AIP-132/158/160) behind every CES collection: the caller renders
 * all of a parent's resources to their wire form (apps hold few), this filters, sorts and pages
 * them in memory. Filters and sorting see exactly what a client sees in the response.
 */

/** The fields of every List request message; spread into each family's strict request schema. */
export const listRequestFields = {
  pageSize: z.number().int().optional().describe('Maximum results per page; 0 or absent means 50, at most 1000.'),
  pageToken: z.string().optional().describe('nextPageToken of the previous page, unchanged.'),
  filter: z.string().optional().describe('AIP-160 filter over the resource fields, e.g. displayName = "weather".'),
  orderBy: z.string().optional().describe("'name' or 'create_time', optionally followed by ' desc'."),
};

export interface ListRequest {
  parent: string;
  pageSize?: number | undefined;
  pageToken?: string | undefined;
  filter?: string | undefined;
  orderBy?: string | undefined;
}

export interface ListOptions {
  /** Top-level fields of the resource type a filter may name (camelCase). */
  fields: readonly string[];
  codec: PageTokenCodec;
}

const SORTABLE = ['name', 'create_time'] as const;

// AIP-160 names proto fields (snake_case); JSON clients write camelCase. Both reach the same field.
function camelCase(segment: string): string {
  return segment.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

function withCamelCaseFields(expression: FilterExpression): FilterExpression {
  switch (expression.type) {
    case 'all':
      return expression;
    case 'and':
    case 'or':
      return { type: expression.type, operands: expression.operands.map(withCamelCaseFields) };
    case 'not':
      return { type: 'not', operand: withCamelCaseFields(expression.operand) };
    case 'compare':
      return { ...expression, field: expression.field.split('.').map(camelCase).join('.') };
  }
}

function readFilter(text: string | undefined, fields: readonly string[]): FilterExpression {
  const expression = withCamelCaseFields(parseFilter(text ?? ''));
  for (const field of filterFields(expression)) {
    const top = field.split('.')[0]!;
    if (!fields.includes(top)) {
      throw new BatonError(
        'invalid_filter',
        `Invalid filter: '${field}' is not a field of this resource. Filterable fields: ${fields.join(', ')}.`,
        {
          param: 'filter',
        },
      );
    }
  }
  return expression;
}

function sortValue(resource: JsonObject, field: string): string {
  const value = field === 'create_time' ? resource.createTime : resource.name;
  return typeof value === 'string' ? value : '';
}

/**
 * One page of `resources` as the List response `{<collection>: [...], nextPageToken}`;
 * nextPageToken is omitted on the last page (proto JSON leaves empty strings out).
 */
export function listResponse<K extends string>(
  collection: K,
  resources: readonly JsonObject[],
  request: ListRequest,
  options: ListOptions,
): { [key in K]: JsonObject[] } & { nextPageToken?: string } {
  const pageSize = readPageSize(request.pageSize);
  const filter = readFilter(request.filter, options.fields);
  const order = parseOrderBy(request.orderBy, SORTABLE);
  // The token is bound to everything that decides the sequence; pageSize may change between pages.
  const query = JSON.stringify([request.parent, request.filter ?? '', request.orderBy ?? '']);
  const { page, nextPageToken } = paginate(
    resources.filter((resource) => matchesFilter(filter, resource)),
    {
      pageSize,
      pageToken: request.pageToken,
      query,
      order,
      sortKey: sortKeyFor(order, sortValue),
      codec: options.codec,
    },
  );
  const response = { [collection]: page } as { [key in K]: JsonObject[] } & { nextPageToken?: string };
  if (nextPageToken !== '') response.nextPageToken = nextPageToken;
  return response;
}
