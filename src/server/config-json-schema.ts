import { z } from 'zod';
import { configFileSchema } from './config.ts';
import { ENV_REFERENCE_SOURCE } from './env-interpolation.ts';

/**
 * baton.yaml as a JSON Schema, for editors (the YAML language server reads the
 * `# yaml-language-server: $schema=./baton.schema.json` line of the file) and for CI. It is
 * generated from the zod schema the server validates with, so it cannot drift: every key, range,
 * enum, description and default comes from there (`npm run config:schema` writes baton.schema.json;
 * a test fails when the committed file differs). Draft-07, which every editor plugin reads.
 */

const ENV_REFERENCE = 'environment_reference';

/** What a number or a boolean may also be in the file as written: `${VAR}`, replaced before the YAML is read. */
const environmentReference = {
  type: 'string',
  pattern: ENV_REFERENCE_SOURCE,
  description: 'An environment variable, ${NAME} or ${NAME:-default}, replaced with its value when the file is read.',
};

/** Keys that describe a value rather than constrain it: they stay on the outside when a value gets alternatives. */
const ANNOTATIONS = new Set(['description', 'default', 'deprecated', 'title', 'examples']);

type JsonSchemaNode = Record<string, unknown>;

function isNode(value: unknown): value is JsonSchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Interpolation is textual, so `port: ${PORT}` is valid baton.yaml though an editor sees a string
 * where a number belongs: every number and boolean also takes a reference to the environment.
 */
function acceptEnvironmentReferences(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(acceptEnvironmentReferences);
  if (!isNode(node)) return node;
  const outside: JsonSchemaNode = {};
  const value: JsonSchemaNode = {};
  for (const [key, entry] of Object.entries(node)) {
    // Every zod integer carries the safe-integer bounds; a reader needs only the field's own range.
    if ((key === 'maximum' || key === 'minimum') && Math.abs(Number(entry)) === Number.MAX_SAFE_INTEGER) continue;
    (ANNOTATIONS.has(key) ? outside : value)[key] = acceptEnvironmentReferences(entry);
  }
  // The description first, where a reader of the file looks.
  if (!['number', 'integer', 'boolean'].includes(String(value.type))) return { ...outside, ...value };
  return { ...outside, anyOf: [value, { $ref: `#/definitions/${ENV_REFERENCE}` }] };
}

/** The JSON Schema of baton.yaml, as an object. */
export function configJsonSchema(): JsonSchemaNode {
  const generated = z.toJSONSchema(configFileSchema, { io: 'input', target: 'draft-7', unrepresentable: 'any' });
  const { $schema, definitions, ...body } = acceptEnvironmentReferences(generated) as JsonSchemaNode;
  return {
    $schema,
    title: 'baton.yaml',
    description:
      "The configuration of a Baton server: read from ./baton.yaml or BATON_CONFIG, every key optional. Check a file with 'baton config check'.",
    ...body,
    definitions: { ...(isNode(definitions) ? definitions : {}), [ENV_REFERENCE]: environmentReference },
  };
}
