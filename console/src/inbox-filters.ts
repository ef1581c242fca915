/**
 * The inbox filters as they live in the address (`#/inbox?agent=&tool=&age=`) and as the server
 * takes them (`agent`, `tool`, `created_before`).
 */
export interface InboxFilters {
  agent: string;
  tool: string;
  age: AgeFilter;
}

export type AgeFilter = '' | '5m' | '1h' | '1d';

export const AGE_OPTIONS: { value: AgeFilter; label: string; seconds: number }[] = [
  { value: '', label: 'Any age', seconds: 0 },
  { value: '5m', label: 'Older than 5 min', seconds: 300 },
  { value: '1h', label: 'Older than 1 hour', seconds: 3_600 },
  { value: '1d', label: 'Older than 1 day', seconds: 86_400 },
];

export function filtersFromQuery(query: URLSearchParams): InboxFilters {
  const age = query.get('age') ?? '';
  return {
    agent: query.get('agent') ?? '',
    tool: query.get('tool') ?? '',
    age: AGE_OPTIONS.some((option) => option.value === age) ? (age as AgeFilter) : '',
  };
}

export function filtersToQuery(filters: InboxFilters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.agent !== '') query.set('agent', filters.agent);
  if (filters.tool !== '') query.set('tool', filters.tool);
  if (filters.age !== '') query.set('age', filters.age);
  return query;
}

/** The `created_before` cut-off for an age filter, or undefined for "any age". */
export function createdBefore(age: AgeFilter, now: number): string | undefined {
  const seconds = AGE_OPTIONS.find((option) => option.value === age)?.seconds ?? 0;
  return seconds === 0 ? undefined : new Date(now - seconds * 1000).toISOString();
}
