import { createRequire } from 'node:module';
import { startTestBaton } from '../../helpers/test-baton.ts';
import type { TelemetrySettings } from '../../../src/server/telemetry/telemetry-settings.ts';

/**
 * Run as its own process (`node --import tsx`): starts a Baton with the telemetry settings given
 * as JSON in argv[2], makes one round trip, and prints the telemetry packages the process loaded.
 * OpenTelemetry's packages and prom-client are CommonJS, so whatever loaded them is in
 * `require.cache`.
 */
const settings = JSON.parse(process.argv[2] ?? '{"metrics":null,"tracing":null}') as TelemetrySettings;
const server = await startTestBaton({ telemetry: settings });
const thread = (await server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id as string;
await server.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: 'refund of $20' });
await server.close();
const loaded = new Set<string>();
for (const file of Object.keys(createRequire(import.meta.url).cache)) {
  const match = /node_modules\/((?:@opentelemetry\/)?[^/]+)\//.exec(file);
  if (match && (match[1]!.startsWith('@opentelemetry/') || match[1] === 'prom-client')) loaded.add(match[1]!);
}
process.stdout.write(`${JSON.stringify([...loaded].sort())}\n`);
