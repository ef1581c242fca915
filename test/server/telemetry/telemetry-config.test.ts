import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkConfig, loadConfig } from '../../../src/server/config.ts';

/**
 * Where telemetry is configured: `metrics:` in baton.yaml with `BATON_METRICS_TOKEN` and
 * `BATON_METRICS_LISTEN` over it, and tracing by the standard OTEL_* variables. Off unless set;
 * every problem is reported with the configuration's others.
 */
describe('telemetry configuration', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function dirWith(yaml: string | null): string {
    const dir = mkdtempSync(join(tmpdir(), 'baton-telemetry-config-'));
    dirs.push(dir);
    if (yaml !== null) writeFileSync(join(dir, 'baton.yaml'), yaml);
    return dir;
  }
  const TOKEN = 'a-metrics-token-of-some-length';

  it('is all off by default', () => {
    expect(loadConfig({}, dirWith(null)).telemetry).toEqual({ metrics: null, tracing: null });
  });

  it('serves metrics with a token (file or BATON_METRICS_TOKEN), on an address of their own with metrics.listen', () => {
    const dir = dirWith(`metrics:\n  token: \${BATON_METRICS_TOKEN}\n  listen: 127.0.0.1:9464\n`);
    expect(loadConfig({ BATON_METRICS_TOKEN: TOKEN }, dir).telemetry?.metrics).toEqual({
      token: TOKEN,
      listen: { host: '127.0.0.1', port: 9464 },
    });
    const envOnly = loadConfig({ BATON_METRICS_TOKEN: TOKEN, BATON_METRICS_LISTEN: '[::1]:9100' }, dirWith(null));
    expect(envOnly.telemetry?.metrics).toEqual({ token: TOKEN, listen: { host: '::1', port: 9100 } });
    expect(loadConfig({}, dirWith('metrics:\n  listen: 0.0.0.0:9464\n')).telemetry?.metrics).toEqual({
      token: null,
      listen: { host: '0.0.0.0', port: 9464 },
    });
  });

  it('takes an empty token for none: a file naming an unset variable runs without metrics', () => {
    expect(loadConfig({}, dirWith('metrics:\n  token: ${BATON_METRICS_TOKEN}\n')).telemetry?.metrics).toBeNull();
  });

  it('refuses a short token and an address that is not host:port, saying where', () => {
    const problems = (env: NodeJS.ProcessEnv, yaml: string | null) =>
      checkConfig(env, dirWith(yaml)).issues.map((issue) => `${issue.path}: ${issue.message}`);
    expect(problems({ BATON_METRICS_TOKEN: 'short' }, null)).toEqual([
      'BATON_METRICS_TOKEN: must be at least 16 characters long',
    ]);
    expect(problems({}, 'metrics:\n  token: short\n').join('\n')).toMatch(/^metrics\.token: /);
    expect(problems({}, 'metrics:\n  listen: localhost\n').join('\n')).toMatch(
      /^metrics\.listen: 'localhost' is not host:port/,
    );
    expect(problems({ BATON_METRICS_LISTEN: 'localhost:99999' }, null).join('\n')).toMatch(/^BATON_METRICS_LISTEN: /);
  });

  it('traces when an OTLP endpoint is set, as the OpenTelemetry variables say', () => {
    const dir = dirWith(null);
    const tracing = (env: NodeJS.ProcessEnv) => loadConfig(env, dir).telemetry?.tracing;
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
    });
    expect(
      tracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    ).toEqual({ url: 'http://traces:4318/custom', protocol: 'http/json' });
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(tracing({})).toBeNull();
    const grpc = checkConfig(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      dir,
    );
    expect(grpc.issues.map((issue) => issue.message).join('\n')).toMatch(/OTLP\/HTTP, as http\/protobuf or http\/json/);
  });
});
