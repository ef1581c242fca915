import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { EngineTelemetry } from '../../../engine/index.ts';
import type { TracingSettings } from '../telemetry-settings.ts';
import { TracingTelemetry } from './tracing-telemetry.ts';

/** The name and version spans carry as their instrumentation scope. */
const SCOPE = { name: 'baton', version: '0.1.0' };

/**
 * OpenTelemetry tracing, loaded only when an OTLP endpoint is configured: a tracer provider
 * registered for the process (with the async-local-storage context manager and W3C propagation),
 * a batching OTLP/HTTP exporter (protobuf, or JSON), and the undici instrumentation, whose spans
 * are the HTTP calls of server tools (OpenAPI, MCP, OAuth) and of model providers.
 *
 * The provider, its context manager and the instrumentation belong to the process, not to one
 * Baton: several Batons in one process (tests) share one runtime, built with the first one's
 * settings, which shuts down (flushing what is left to export) when the last of them closes. A
 * collector that is down delays that by up to the exporter's timeout (OTEL_EXPORTER_OTLP_TIMEOUT,
 * 10 s by default), and loses the last batch; it never fails the shutdown.
 */
export interface TracingRuntime {
  readonly engine: EngineTelemetry;
  close(): Promise<void>;
}

let shared: { provider: NodeTracerProvider; undici: UndiciInstrumentation; users: number } | null = null;

export function startTracing(settings: TracingSettings): TracingRuntime {
  if (!shared) {
    const exporter =
      settings.protocol === 'http/json'
        ? new OtlpJsonExporter({ url: settings.url })
        : new OtlpProtobufExporter({ url: settings.url });
    const provider = new NodeTracerProvider({
      // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read last, win over Baton's own name.
      resource: defaultResource()
        .merge(resourceFromAttributes({ 'service.name': 'baton', 'service.version': SCOPE.version }))
        .merge(detectResources({ detectors: [envDetector] })),
      // Batching as OTEL_BSP_* say (every 5 s by default); spans never wait on the network.
      spanProcessors: [new BatchSpanProcessor(exporter)],
    });
    provider.register();
    const undici = new UndiciInstrumentation({
      // Only HTTP calls made inside Baton's spans (a tool run, a model step): nothing else is traced.
      requireParentforSpans: true,
      // Query strings may carry a tool's API key (apiKeyConfig in the query): their values never leave.
      startSpanHook: (request) => redactedUrl(request.origin, request.path),
    });
    undici.setTracerProvider(provider);
    shared = { provider, undici, users: 0 };
  }
  const runtime = shared;
  runtime.users += 1;
  let closed = false;
  return {
    engine: new TracingTelemetry(trace.getTracer(SCOPE.name, SCOPE.version)),
    async close() {
      if (closed) return;
      closed = true;
      runtime.users -= 1;
      if (runtime.users > 0) return;
      if (shared === runtime) shared = null;
      runtime.undici.disable();
      // The last batch goes out now; a collector that is down loses it, and must not fail the shutdown.
      await runtime.provider.shutdown().catch(() => undefined);
      // The next start in this process registers afresh.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** `url.full` and `url.query` with every query value replaced: which parameters, never their values. */
export function redactedUrl(origin: string, path: string): Record<string, string> {
  let url: URL;
  try {
    url = new URL(path, origin);
  } catch {
    return {};
  }
  if (url.search === '') return {};
  for (const key of new Set(url.searchParams.keys())) url.searchParams.set(key, 'REDACTED');
  return { 'url.full': url.toString(), 'url.query': url.search };
}
