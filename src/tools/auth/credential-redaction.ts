import type { RequestAuth } from '../openapi/openapi-types.ts';
import { redact } from './auth-error.ts';

/**
 * A tool result with the call's credentials replaced by `[redacted]`. Results go to the model and
 * the transcript; a query-string key travels in URLs (a failed hop's URL is in the error) and an
 * API may echo a credential back.
 */
export function redactCredentials(text: string, auth: RequestAuth): string {
  return redact(text, credentialsOf(auth));
}

/** The credentials a call sends, as they are and as they look inside a URL, longest first. */
function credentialsOf(auth: RequestAuth): string[] {
  const values = [...Object.values(auth.headers ?? {}), ...Object.values(auth.query ?? {})];
  const tokens = values.flatMap((value) => /^Bearer (.+)$/.exec(value)?.[1] ?? []);
  const forms = [...values, ...tokens].flatMap((value) => [
    value,
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
  ]);
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}
