import type { z } from 'zod';
import { BatonError } from './errors/baton-error.ts';
import { isErrorCode } from './errors/error-catalogue.ts';

/** Formats a zod path like the request body: `content[0].tool_call_id`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/** Validates a body or query with zod; failures become a 400 naming the first bad field. */
type Issue = z.core.$ZodIssue;

/**
 * For a union, the branch that got furthest into the value says best what is wrong
 * (`content[0].tool_call_id` is required) rather than "no branch matched".
 */
function mostSpecific(issue: Issue): Issue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  let best: Issue | undefined;
  for (const branch of issue.errors) {
    for (const candidate of branch) {
      const nested = mostSpecific(candidate);
      if (!best || nested.path.length > best.path.length) best = nested;
    }
  }
  if (!best || best.path.length === 0) return issue;
  return { ...best, path: [...issue.path, ...best.path] } as Issue;
}

export function parseRequest<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  what = 'request body',
): z.infer<Schema> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const issue = first ? mostSpecific(first) : undefined;
  const path = issue ? formatPath(issue.path) : '';
  if (issue?.code === 'unrecognized_keys') {
    // Named as OpenAI does (`unknown_parameter`, param = the field itself), so a typo is obvious.
    const keys = issue.keys.map((key) => `'${key}'`).join(', ');
    const first = formatPath([...issue.path, issue.keys[0] ?? '']);
    throw new BatonError(
      'unknown_parameter',
      `Invalid ${what}${path ? ` at '${path}'` : ''}: unknown field(s) ${keys}; remove it or check its spelling.`,
      { param: first },
    );
  }
  const message = issue?.message ?? 'invalid value';
  // A custom check may name its own code (`params.code`, e.g. `invalid_retention`); the field is still named.
  const named = issue?.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
  const code = typeof named === 'string' && isErrorCode(named) ? named : 'invalid_request';
  throw new BatonError(code, `Invalid ${what}${path ? ` at '${path}'` : ''}: ${message}.`, {
    param: path || null,
  });
}
