import { z } from 'zod';

/**
 * What Baton measures and where it goes: Prometheus metrics (`metrics:` in baton.yaml,
 * `BATON_METRICS_TOKEN`, `BATON_METRICS_LISTEN`) and OpenTelemetry traces (the standard OTEL_*
 * variables). Both are off unless configured, and then nothing of them is loaded.
 */
export interface TelemetrySettings {
  metrics: MetricsSettings | null;
  tracing: TracingSettings | null;
}

/**
 * `/metrics` is served only when one of these is set:
 * - `token` alone: on the API's port, to `Authorization: Bearer <token>` only (never to an API key:
 *   the figures cover every app, and a key belongs to one);
 * - `listen`: on that address only (its own small server, not the API's port), with the token
 *   required there too when one is set.
 */
export interface MetricsSettings {
  token: string | null;
  listen: ListenAddress | null;
}

export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * Traces exported over OTLP/HTTP. The OTEL_* variables configure them as any OpenTelemetry SDK
 * reads them (headers, timeout, compression, batching, sampling, resource attributes,
 * `OTEL_SERVICE_NAME`); what is kept here decides whether to load the SDK at all, and how.
 */
export interface TracingSettings {
  /** The URL spans are POSTed to (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `…_ENDPOINT` + `/v1/traces`). */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
}

export const NO_TELEMETRY_SETTINGS: TelemetrySettings = { metrics: null, tracing: null };

/** A metrics token is a bearer secret: long enough not to be guessed. */
export const MIN_METRICS_TOKEN_LENGTH = 16;

export const metricsFileSchema = z
  .object({
    token: z
      .string()
      .nullable()
      .optional()
      .describe(
        'Bearer token Prometheus sends to GET /metrics (at least 16 characters; write ${BATON_METRICS_TOKEN}, ' +
          'which also sets it; empty or null means none). Without token and listen, /metrics is off.',
      ),
    listen: z
      .string()
      .optional()
      .describe(
        'Serve /metrics on this address only (host:port, e.g. 127.0.0.1:9464), not on the API port; ' +
          'the token, when set, is required there too.',
      ),
  })
  .strict()
  .describe('Prometheus metrics at /metrics: off unless a token or a listen address is set (see the README).');

export type MetricsFile = z.infer<typeof metricsFileSchema>;

/** `host:port`, `[ipv6]:port`; the port 0 to 65535. */
export function parseListenAddress(text: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  if (!match || host === undefined || !Number.isInteger(port) || port > 65535)
    throw new Error(`'${text}' is not host:port (e.g. 127.0.0.1:9464 or [::1]:9464)`);
  return { host, port };
}

/** A problem with a telemetry setting: where (path segments, or a variable's name) and what. */
export interface TelemetryProblem {
  at: readonly PropertyKey[];
  message: string;
}

/**
 * The telemetry settings from `metrics:` and the environment, with every problem found (the
 * settings are then not to be used): the configuration reports them with its own.
 */
export function telemetrySettingsFrom(
  file: MetricsFile | undefined,
  env: NodeJS.ProcessEnv,
): { settings: TelemetrySettings; problems: TelemetryProblem[] } {
  const problems: TelemetryProblem[] = [];
  const metrics = metricsSettingsFrom(file, env, problems);
  let tracing: TracingSettings | null = null;
  try {
    tracing = tracingSettingsFrom(env);
  } catch (error) {
    problems.push({ at: ['OTEL_EXPORTER_OTLP_ENDPOINT'], message: (error as Error).message });
  }
  return { settings: { metrics, tracing }, problems };
}

/**
 * The metrics settings from the file and the environment (`BATON_METRICS_TOKEN` and
 * `BATON_METRICS_LISTEN` replace the file's values); null when neither a token nor an address is
 * set.
 */
function metricsSettingsFrom(
  file: MetricsFile | undefined,
  env: NodeJS.ProcessEnv,
  problems: TelemetryProblem[],
): MetricsSettings | null {
  // An empty token is none: `token: ${BATON_METRICS_TOKEN}` with the variable unset turns metrics off.
  const envToken = nonEmpty(env.BATON_METRICS_TOKEN);
  const fileToken = nonEmpty(file?.token ?? undefined);
  const token = envToken ?? fileToken ?? null;
  if (token !== null && token.length < MIN_METRICS_TOKEN_LENGTH)
    problems.push({
      at: envToken !== undefined ? ['BATON_METRICS_TOKEN'] : ['metrics', 'token'],
      message: `must be at least ${MIN_METRICS_TOKEN_LENGTH} characters long`,
    });
  const envListen = nonEmpty(env.BATON_METRICS_LISTEN);
  const listenText = envListen ?? file?.listen;
  let listen: ListenAddress | null = null;
  if (listenText !== undefined) {
    try {
      listen = parseListenAddress(listenText);
    } catch (error) {
      problems.push({
        at: envListen !== undefined ? ['BATON_METRICS_LISTEN'] : ['metrics', 'listen'],
        message: (error as Error).message,
      });
    }
  }
  return token === null && listen === null ? null : { token, listen };
}

/**
 * Tracing from the standard OpenTelemetry variables: on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_ENDPOINT` is set, unless `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none`. The protocol is `http/protobuf` (the default) or `http/json`;
 * `grpc` is refused, since Baton ships the HTTP exporters only.
 */
export function tracingSettingsFrom(env: NodeJS.ProcessEnv): TracingSettings | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((name) => name.trim().toLowerCase());
  if (exporters.includes('none')) return null;
  const signal = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (signal === undefined && base === undefined) return null;
  if (!exporters.includes('otlp'))
    throw new Error(`OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER}: Baton exports traces with otlp only (or none)`);
  // As the specification says: the signal's own endpoint is used as is, the general one gets the path.
  const url = signal ?? `${base!.replace(/\/+$/, '')}/v1/traces`;
  try {
    new URL(url);
  } catch {
    throw new Error(`the OTLP traces endpoint '${url}' is not a URL`);
  }
  const protocol = (
    nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ??
    nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL) ??
    'http/protobuf'
  ).trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json')
    throw new Error(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: Baton exports traces over OTLP/HTTP, as http/protobuf or http/json`,
    );
  return { url, protocol };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
