import { parseArgs } from 'node:util';
import { Baton, type ApiKey, type ApiKeyRole } from '@baton/client';

const USAGE = `Usage (BATON_URL, default http://127.0.0.1:8080; BATON_API_KEY: an app admin or operator key):
  baton keys list [--app APP_ID]
  baton keys create [--role reader|member|admin|operator] [--name NAME] [--expires-in SECONDS] [--app APP_ID]
  baton keys revoke KEY_ID [--app APP_ID]
  baton keys rotate KEY_ID [--grace SECONDS] [--app APP_ID]`;

const ROLES: readonly ApiKeyRole[] = ['reader', 'member', 'admin', 'operator'];

function row(key: ApiKey): string {
  const state = key.revoked_at ? `revoked ${key.revoked_at}` : key.expires_at ? `expires ${key.expires_at}` : 'active';
  return [key.id, key.prefix + '…', key.role, key.name ?? '-', state, `last used ${key.last_used_at ?? 'never'}`].join(
    '  ',
  );
}

function seconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new TypeError(`${flag} must be a whole number of seconds (got '${value}').`);
  return parsed;
}

/**
 * `baton keys …`: list, create, revoke and rotate API keys through the SDK. Secrets are printed
 * once, on create and rotate; list never shows them.
 */
export async function runKeys(args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      app: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      'expires-in': { type: 'string' },
      grace: { type: 'string' },
    },
  });
  const [action, keyId] = positionals;
  const apiKey = process.env.BATON_API_KEY ?? process.env.BATON_ADMIN_KEY;
  if (!apiKey) {
    console.error(`Set BATON_API_KEY to an app admin or operator key.\n${USAGE}`);
    return 1;
  }
  const baton = new Baton({ baseURL: process.env.BATON_URL ?? 'http://127.0.0.1:8080', apiKey });
  const scope = values.app ? { app_id: values.app } : {};
  try {
    switch (action) {
      case 'list': {
        const { data } = await baton.apiKeys.list(scope);
        for (const key of data) console.log(row(key));
        return 0;
      }
      case 'create': {
        const role = values.role as ApiKeyRole | undefined;
        if (role !== undefined && !ROLES.includes(role))
          throw new TypeError(`--role must be one of ${ROLES.join(', ')}.`);
        const expires = seconds(values['expires-in'], '--expires-in');
        const created = await baton.apiKeys.create({
          ...scope,
          ...(role ? { role } : {}),
          ...(values.name ? { name: values.name } : {}),
          ...(expires !== undefined ? { expires_in_seconds: expires } : {}),
        });
        console.log(row(created));
        console.log(`secret (shown once): ${created.key}`);
        return 0;
      }
      case 'revoke': {
        if (!keyId) break;
        console.log(row(await baton.apiKeys.revoke(keyId, scope)));
        return 0;
      }
      case 'rotate': {
        if (!keyId) break;
        const grace = seconds(values.grace, '--grace');
        const rotated = await baton.apiKeys.rotate(keyId, grace !== undefined ? { grace_seconds: grace } : {}, scope);
        console.log(`old: ${row(rotated.replaces)}`);
        console.log(`new: ${row(rotated)}`);
        console.log(`secret (shown once): ${rotated.key}`);
        return 0;
      }
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    return 1;
  }
  console.error(USAGE);
  return 1;
}
