/**
 * `{{…}}` placeholders of scripted programs: `{{user}}`, `{{result}}` and `{{result.a.b}}`.
 * Unknown placeholders are rejected when the program is parsed (see `templateErrors`) rather than
 * rendered as-is, so that a typo in a script fails loudly instead of leaking into a demo answer.
 */

export interface TemplateValues {
  /** Text of the last user message. */
  readonly user: string;
  /** Text of the tool result the rule refers to. */
  readonly resultText: string;
  /** The same result parsed as JSON, for `{{result.path}}`; undefined when it is not JSON. */
  readonly resultValue: unknown;
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const VALID_NAME = /^(?:user|result(?:\.[^.\s]+)*)$/;

/** Descriptions of invalid placeholders in `template`; empty when it is valid. */
export function templateErrors(template: string): string[] {
  const errors: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? '';
    if (!VALID_NAME.test(name)) {
      errors.push(`unknown placeholder "{{${name}}}" (use {{user}}, {{result}} or {{result.path.to.field}})`);
    }
  }
  return errors;
}

export function renderTemplate(template: string, values: TemplateValues): string {
  return template.replace(PLACEHOLDER, (_whole, name: string) => {
    if (name === 'user') return values.user;
    if (name === 'result') return values.resultText;
    if (name.startsWith('result.'))
      return renderValue(lookup(values.resultValue, name.slice('result.'.length).split('.')));
    return '';
  });
}

/** Renders every string inside a JSON-like value, for templated tool-call arguments. */
export function renderTemplatesDeep(value: unknown, values: TemplateValues): unknown {
  if (typeof value === 'string') return renderTemplate(value, values);
  if (Array.isArray(value)) return value.map((item) => renderTemplatesDeep(item, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderTemplatesDeep(item, values)]));
  }
  return value;
}

function lookup(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) {
      current = current[Number(segment)];
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

function renderValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
