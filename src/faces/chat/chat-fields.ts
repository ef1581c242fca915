import type { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ErrorCode } from '../../domain/errors/error-catalogue.ts';
import { formatPath } from '../../domain/parse-request.ts';

/**
 * Parses one element of the body (a message, a tool) on its own, so that an error names it
 * exactly (`messages[3].tool_calls[0].function.name`) instead of "no variant matched".
 */
export function parseField<Schema extends z.ZodType>(schema: Schema, value: unknown, at: string): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // A misspelt field usually also leaves a required one missing: the misspelling is the news.
  const issue = result.error.issues.find((found) => found.code === 'unrecognized_keys') ?? result.error.issues[0];
  const path = issue ? formatPath(issue.path) : '';
  const param = `${at}${path && !path.startsWith('[') ? '.' : ''}${path}`;
  if (issue?.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => `'${key}'`).join(', ');
    const first = `${param}.${issue.keys[0] ?? ''}`;
    throw new BatonError(
      'unknown_parameter',
      `Unrecognized field(s) ${keys} at ${param}: remove it or check its spelling.`,
      { param: first },
    );
  }
  const missing = issue !== undefined && valueAt(value, issue.path) === undefined;
  throw new BatonError(
    'invalid_request',
    missing ? `${param} is required.` : `Invalid value at ${param}: ${issue?.message ?? 'invalid value'}.`,
    { param },
  );
}

export function invalidField(param: string, message: string, code: ErrorCode = 'invalid_value'): BatonError {
  return new BatonError(code, message, { param });
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
