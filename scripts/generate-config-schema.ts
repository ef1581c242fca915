/**
 * Writes baton.schema.json, the JSON Schema of baton.yaml, from the zod schema the server reads the
 * file with (src/server/config.ts): `npm run config:schema`. Run it after adding or changing a key.
 * test/server/config-schema.test.ts fails when the committed file differs from what
 * `renderConfigSchema()` returns, so a key and its schema land together.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { configJsonSchema } from '../src/server/config-json-schema.ts';

export const CONFIG_SCHEMA_PATH = fileURLToPath(new URL('../baton.schema.json', import.meta.url));

/** The file's text, laid out as Prettier lays it out (`npm run lint` checks it). */
export async function renderConfigSchema(): Promise<string> {
  const options = (await resolveConfig(CONFIG_SCHEMA_PATH)) ?? {};
  return format(JSON.stringify(configJsonSchema(), null, 2), { ...options, filepath: CONFIG_SCHEMA_PATH });
}

function isMain(): boolean {
  const entry = process.argv[1];
  return entry !== undefined && resolve(entry) === fileURLToPath(import.meta.url);
}

if (isMain()) {
  writeFileSync(CONFIG_SCHEMA_PATH, await renderConfigSchema());
  console.log(`Wrote ${CONFIG_SCHEMA_PATH}.`);
}
