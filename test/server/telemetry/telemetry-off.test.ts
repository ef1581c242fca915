import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { TelemetrySettings } from '../../../src/server/telemetry/telemetry-settings.ts';
import { OtlpReceiver } from '../../helpers/otlp-receiver.ts';

/**
 * With neither metrics nor tracing configured, nothing of them is loaded: no OpenTelemetry
 * package, no prom-client (they are imported dynamically, only when configured). Each case runs a
 * Baton in a process of its own and lists what that process loaded.
 */

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PROBE = fileURLToPath(new URL('./loaded-modules-probe.ts', import.meta.url));

async function loadedWith(settings: TelemetrySettings): Promise<string[]> {
  const env = { ...process.env };
  for (const name of ['NODE_OPTIONS', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) delete env[name];
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', PROBE, JSON.stringify(settings)], {
    cwd: REPO_ROOT,
    env,
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as string[];
}

describe('telemetry costs nothing when it is off', () => {
  it('loads neither OpenTelemetry nor prom-client without configuration', async () => {
    expect(await loadedWith({ metrics: null, tracing: null })).toEqual([]);
  });

  it('loads prom-client alone for metrics, and OpenTelemetry only for tracing', async () => {
    const metricsOnly = await loadedWith({
      metrics: { token: 'metrics-token-0123456789abcdef', listen: null },
      tracing: null,
    });
    expect(metricsOnly).toContain('prom-client');
    // prom-client has the OpenTelemetry API as a dependency (for exemplars); no SDK comes with it.
    expect(metricsOnly.filter((name) => name.startsWith('@opentelemetry/') && name !== '@opentelemetry/api')).toEqual(
      [],
    );
    const receiver = await new OtlpReceiver().start();
    try {
      const tracingOnly = await loadedWith({
        metrics: null,
        tracing: { url: `${receiver.url}/v1/traces`, protocol: 'http/protobuf' },
      });
      expect(tracingOnly).toContain('@opentelemetry/sdk-trace-base');
      expect(tracingOnly).toContain('@opentelemetry/instrumentation-undici');
      expect(tracingOnly).not.toContain('prom-client');
      // The probe's round trip reached the receiver before its process closed.
      expect(receiver.spans.some((span) => span.name === 'invoke_agent refund-desk')).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
