import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA_PATH, renderConfigSchema } from '../../scripts/generate-config-schema.ts';
import { configFileSchema, interpolateEnv, loadConfig } from '../../src/server/config.ts';

/**
 * baton.schema.json against the zod schema it is generated from and against baton.example.yaml:
 * the committed file is what `npm run config:schema` writes, every key says what it is, and the
 * example (as an editor sees it, `${VAR}` and all, and as the server reads it) is valid.
 */

const EXAMPLE = fileURLToPath(new URL('../../baton.example.yaml', import.meta.url));

type Node = Record<string, any>;

function committedSchema(): Node {
  return JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as Node;
}

function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  return ajv.compile(committedSchema());
}

/** Each property of the schema, by its path, with its schema: where editors show a description. */
function properties(node: unknown, path = ''): Array<[string, Node]> {
  if (typeof node !== 'object' || node === null) return [];
  const schema = node as Node;
  const found: Array<[string, Node]> = [];
  for (const [key, child] of Object.entries((schema.properties ?? {}) as Record<string, Node>)) {
    const at = path === '' ? key : `${path}.${key}`;
    found.push([at, child], ...properties(child, at));
  }
  for (const alternative of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])])
    found.push(...properties(alternative, path));
  if (schema.items) found.push(...properties(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === 'object')
    found.push(...properties(schema.additionalProperties, `${path}.*`));
  return found;
}

describe('baton.schema.json', () => {
  it('is what `npm run config:schema` generates from src/server/config.ts', async () => {
    let committed = '';
    try {
      committed = readFileSync(CONFIG_SCHEMA_PATH, 'utf8');
    } catch {
      // A missing file fails below, with the same advice.
    }
    expect(committed, 'baton.schema.json is out of date: run `npm run config:schema` and commit it').toBe(
      await renderConfigSchema(),
    );
  });

  it('has every section of the file, and a description for every key', () => {
    const schema = committedSchema();
    expect(Object.keys(schema.properties)).toEqual(Object.keys(configFileSchema.shape));
    const all = properties(schema);
    expect(all.length).toBeGreaterThan(100);
    const undescribed = all.filter(([, node]) => typeof node.description !== 'string' || node.description === '');
    expect(
      undescribed.map(([path]) => path),
      "keys without a description: add .describe('…') (or .meta({ description, default })) in the zod schema, then npm run config:schema",
    ).toEqual([]);
  });

  it('states ranges, enums and defaults', () => {
    const { properties: sections } = committedSchema();
    expect(sections.engine.properties.turn_lease_seconds).toMatchObject({
      default: 15,
      anyOf: [{ type: 'integer', minimum: 3, maximum: 86_400 }, { $ref: '#/definitions/environment_reference' }],
    });
    expect(sections.limits.properties.turns_per_app.default).toBe(100);
    expect(sections.agents.items.properties.timeout_policy).toMatchObject({
      enum: ['error_result', 'fail', 'cancel'],
      default: 'error_result',
    });
    expect(sections.agents.items.properties.tools.items.properties.name.pattern).toBe('^[a-zA-Z0-9_-]{1,64}$');
    expect(sections.engine.properties.stale_turn_seconds.deprecated).toBe(true);
  });

  it('accepts baton.example.yaml as an editor sees it and as the server reads it', () => {
    const text = readFileSync(EXAMPLE, 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./baton.schema.json');
    const validate = validator();
    const asWritten = parseYaml(text) as unknown;
    expect(validate(asWritten), JSON.stringify(validate.errors)).toBe(true);
    const asRead = parseYaml(interpolateEnv(text, {})) as unknown;
    expect(validate(asRead), JSON.stringify(validate.errors)).toBe(true);
    expect(() => loadConfig({ BATON_CONFIG: EXAMPLE }, process.cwd())).not.toThrow();
  });

  it('refuses what the server refuses, and takes ${VAR} where a number or a boolean belongs', () => {
    const validate = validator();
    const valid = (yaml: string) => validate(parseYaml(yaml));
    expect(valid('engine:\n  turn_lease_seconds: 100000\n')).toBe(false);
    expect(valid('server:\n  prot: 8080\n')).toBe(false);
    expect(valid('agents:\n  - name: a\n    model: scripted:auto\n    timeout_policy: never\n')).toBe(false);
    expect(valid('agents:\n  - name: a\n    tools: []\n')).toBe(false); // no model
    expect(valid('providers:\n  custom:\n    openai: { base_url: "http://x" }\n')).toBe(false);
    expect(valid('scripted:\n  auto: { rules: [{ say: hi }] }\n')).toBe(false);
    expect(valid('server:\n  port: ${PORT:-8080}\ndatabase:\n  prepared_statements: ${PREPARED}\n')).toBe(true);
    expect(valid('server:\n  port: 8080\nlimits:\n  turns_per_app: 5\n')).toBe(true);
  });
});
