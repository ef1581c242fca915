import type { z } from 'zod';
import { EngineError } from '../engine/engine-error.ts';

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
export function parseRequest<Schema extends z.ZodType>(schema: Schema, value: unknown, what = 'request body'): z.infer<Schema> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = issue ? formatPath(issue.path) : '';
  let message = issue?.message ?? 'invalid value';
  if (issue?.code === 'unrecognized_keys') message = `unknown field(s) ${issue.keys.map((key) => `'${key}'`).join(', ')}`;
  throw new EngineError('invalid_request', 'invalid_request', `Invalid ${what}${param ? ` at '${param}'` : ''}: ${message}.`, { param: param || null });
}
