import { parseDocument, visit } from 'yaml';

/**
 * `${NAME}` and `${NAME:-default}` in baton.yaml, replaced with environment values before the
 * YAML is read, so secrets stay out of the file. The replacement is textual: it works in any
 * value, a number or a boolean as well as a string.
 */

/** One reference, as a regular expression source (also the pattern baton.schema.json accepts for it). */
export const ENV_REFERENCE_SOURCE = String.raw`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`;

function references(): RegExp {
  return new RegExp(ENV_REFERENCE_SOURCE, 'g');
}

/** Replaces each reference with the variable's value, else its default, else nothing. */
export function interpolateEnv(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(references(), (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    return '';
  });
}

/**
 * The variables referenced without a default that are unset or empty: each reads as nothing,
 * which is what the operator wants for an optional provider key and a mistake anywhere else.
 * References in comments are replaced too, harmlessly, so only the file's values count.
 */
export function unsetEnvReferences(text: string, env: NodeJS.ProcessEnv): string[] {
  const unset = new Set<string>();
  for (const value of valueTexts(text)) {
    for (const [, name, fallback] of value.matchAll(references())) {
      if (name !== undefined && fallback === undefined && (env[name] ?? '') === '') unset.add(name);
    }
  }
  return [...unset];
}

/** The keys and values of the YAML as written (before interpolation), or the whole text when it does not parse. */
function valueTexts(text: string): string[] {
  const document = parseDocument(text);
  if (document.errors.length > 0) return [text];
  const texts: string[] = [];
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.source === 'string') texts.push(node.source);
      else if (typeof node.value === 'string') texts.push(node.value);
    },
  });
  return texts;
}
