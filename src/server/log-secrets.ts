import type { BatonConfig } from './config.ts';

/**
 * The secrets this server holds in its configuration and environment, for the log to replace
 * wherever they appear (log-secret-scrubbing.ts): a provider's key has no fixed shape (a custom
 * provider's may be anything), and an error message may quote one. The metrics token and the
 * tracing exporter's headers are among them.
 */
export function knownLogSecrets(config: BatonConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  const secrets: (string | undefined | null)[] = [
    config.adminKey,
    env.BATON_SECRETS_KEY?.trim(),
    ...Object.entries(config.providers).flatMap(([name, provider]) =>
      name === 'custom'
        ? Object.values((provider ?? {}) as Record<string, { apiKey?: string }>).map((custom) => custom.apiKey)
        : [(provider as { apiKey?: string } | undefined)?.apiKey],
    ),
    databasePassword(config.databaseUrl),
    config.telemetry?.metrics?.token,
    env.BATON_METRICS_TOKEN,
    ...exporterHeaderValues(env.OTEL_EXPORTER_OTLP_HEADERS),
    ...exporterHeaderValues(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
  ];
  return secrets.filter((secret): secret is string => typeof secret === 'string' && secret !== '');
}

/** `OTEL_EXPORTER_OTLP_HEADERS` (`api-key=…,x-team=…`): a tracing backend's credentials. */
function exporterHeaderValues(headers: string | undefined): string[] {
  if (headers === undefined) return [];
  return headers.split(',').flatMap((pair) => {
    const value = pair.slice(pair.indexOf('=') + 1).trim();
    return pair.includes('=') && value !== '' ? [decodeURIComponentSafely(value)] : [];
  });
}

function decodeURIComponentSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function databasePassword(url: string | null): string | undefined {
  if (url === null) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}
