/**
 * Turns @readme/openapi-parser's validation errors into one line that names the problem and the
 * place. The parser explains schema violations with a code frame over
 * `JSON.stringify(document, null, 2)` (via better-ajv-errors) but drops the JSON pointer; we
 * recover the place by numbering the lines of that same rendering ourselves, so the message can
 * say `paths./pets.get: must have required property 'responses'` instead of showing a frame of
 * a document the user never wrote in that layout.
 */
import type { ErrorDetails } from '@readme/openapi-parser';
import { joinWhere } from './openapi-error.ts';

const MAX_LISTED_ERRORS = 3;

/** For each line of `JSON.stringify(value, null, 2)` (1-based), the path of the value it starts or closes. */
export function lineLocations(value: unknown): string[] {
  const locations: string[] = ['', ''];
  let line = 1;
  const walk = (node: unknown, path: (string | number)[]): void => {
    if (node === null || typeof node !== 'object') return;
    const entries: [string | number, unknown][] = Array.isArray(node)
      ? node.map((item, index): [number, unknown] => [index, item])
      : Object.entries(node).filter(([, child]) => child !== undefined && typeof child !== 'function');
    if (entries.length === 0) return; // `{}` and `[]` stay on their line
    for (const [key, child] of entries) {
      line += 1;
      locations[line] = joinWhere([...path, key]);
      walk(child, [...path, key]);
    }
    line += 1;
    locations[line] = joinWhere(path);
  };
  walk(value, []);
  return locations;
}

/** One parser error as `where: what (hint)`, or the parser's own text when it carries no frame. */
function describeOne(message: string, locations: string[]): string {
  const lines = message.split('\n');
  const headline = (lines[0] ?? '').replace(/^[A-Z][A-Z ]*? (?=must|should|is|has)/, '').trim();
  const marked = lines.find((text) => /^>\s*\d+\s*\|/.test(text));
  if (marked === undefined) return message.trim();
  const lineNumber = Number(/^>\s*(\d+)/.exec(marked)?.[1]);
  const where = locations[lineNumber];
  const hint = lines.map((text) => /^\s*\|\s*\^+\s*(.+)$/.exec(text)?.[1]).find((text) => text !== undefined);
  const place = where === undefined || where === '' ? 'document root' : where;
  // better-ajv-errors' hint adds something only when it is not a rewording of the headline.
  const useful =
    hint !== undefined && !headline.includes(hint) && !/should be equal to one of the allowed values/.test(hint);
  return `${place}: ${headline}${useful ? ` (${hint.trim()})` : ''}`;
}

/** Summarises the errors (the first few) of a failed validation of `document`. */
export function describeValidationErrors(errors: readonly ErrorDetails[], document: unknown, additional = 0): string {
  const locations = lineLocations(document);
  const described = errors.slice(0, MAX_LISTED_ERRORS).map((error) => describeOne(error.message, locations));
  const more = errors.length - described.length + additional;
  return described.join('; ') + (more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : '');
}
