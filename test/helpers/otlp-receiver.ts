import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

/**
 * An OTLP/HTTP traces receiver for tests: it takes `POST /v1/traces` as the OpenTelemetry
 * exporters send it (protobuf, or JSON), decodes every request with a real protobuf decoder, and
 * keeps the spans. The message definitions below are those of opentelemetry-proto
 * (collector/trace/v1, trace/v1, common/v1, resource/v1), field numbers included, restricted to
 * the fields a test reads: unknown fields are skipped by the decoder, as protobuf does.
 */
const OTLP_TRACES_PROTO = `
syntax = "proto3";
package opentelemetry.proto;

message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }

message ResourceSpans {
  Resource resource = 1;
  repeated ScopeSpans scope_spans = 2;
  string schema_url = 3;
}
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans {
  InstrumentationScope scope = 1;
  repeated Span spans = 2;
  string schema_url = 3;
}
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }

message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;

  message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated KeyValue attributes = 4;
    uint32 dropped_attributes_count = 5;
    fixed32 flags = 6;
  }
}
message Status { string message = 2; int32 code = 3; }

message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;

const REQUEST = protobuf
  .parse(OTLP_TRACES_PROTO, { keepCase: true })
  .root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');

export type AttributeValue = string | number | boolean | AttributeValue[] | null;

/** A span as a test reads it: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  links: Array<{ traceId: string; spanId: string; attributes: Record<string, AttributeValue> }>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, AttributeValue>;
  scope: string;
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Spans received, kept or not. */
  received = 0;
  requests = 0;

  /** `keepSpans` false: decode and count only (a benchmark's receiver holds nothing). */
  constructor(private readonly keepSpans = true) {}

  /** What each request was sent as. */
  readonly contentTypes: string[] = [];
  /** The headers of each request (the exporter's own, from OTEL_EXPORTER_OTLP_HEADERS, among them). */
  readonly headers: IncomingHttpHeaders[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          let body = Buffer.concat(chunks);
          if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
          const type = request.headers['content-type'] ?? '';
          this.contentTypes.push(type);
          this.headers.push(request.headers);
          if (request.url !== '/v1/traces') throw new Error(`unexpected path ${request.url}`);
          const spans = type.includes('json') ? fromJson(body) : fromProtobuf(body);
          this.requests += 1;
          this.received += spans.length;
          if (this.keepSpans) this.spans.push(...spans);
          response.writeHead(200, {
            'content-type': type.includes('json') ? 'application/json' : 'application/x-protobuf',
          });
          response.end(type.includes('json') ? '{}' : '');
        } catch (error) {
          response.writeHead(400, { 'content-type': 'text/plain' });
          response.end(String(error));
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Waits until a span satisfies `match` (the exporter batches), or fails after `timeoutMs`. */
  async waitFor(match: (span: ReceivedSpan) => boolean, timeoutMs = 15_000): Promise<ReceivedSpan> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.spans.find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`No such span within ${timeoutMs} ms; received: ${this.spans.map((s) => s.name).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

interface DecodedKeyValue {
  key: string;
  value?: DecodedAnyValue;
}
interface DecodedAnyValue {
  /** Which member of the `value` oneof is set (protobufjs's `oneofs` option). */
  value?: 'string_value' | 'bool_value' | 'int_value' | 'double_value' | 'array_value' | 'kvlist_value' | 'bytes_value';
  string_value?: string;
  bool_value?: boolean;
  int_value?: string;
  double_value?: number;
  array_value?: { values?: DecodedAnyValue[] };
  bytes_value?: Uint8Array;
}

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const decoded = REQUEST.toObject(REQUEST.decode(body), { longs: String, arrays: true, oneofs: true }) as {
    resource_spans: Array<{
      resource?: { attributes: DecodedKeyValue[] };
      scope_spans: Array<{
        scope?: { name: string };
        spans: Array<{
          trace_id: Uint8Array;
          span_id: Uint8Array;
          parent_span_id: Uint8Array;
          name: string;
          kind: number;
          start_time_unix_nano: string;
          end_time_unix_nano: string;
          attributes: DecodedKeyValue[];
          links: Array<{ trace_id: Uint8Array; span_id: Uint8Array; attributes: DecodedKeyValue[] }>;
          status?: { code: number };
        }>;
      }>;
    }>;
  };
  return decoded.resource_spans.flatMap((resourceSpans) =>
    resourceSpans.scope_spans.flatMap((scopeSpans) =>
      scopeSpans.spans.map((span) => ({
        traceId: hex(span.trace_id),
        spanId: hex(span.span_id),
        parentSpanId: hex(span.parent_span_id),
        name: span.name,
        kind: span.kind,
        startMs: Number(BigInt(span.start_time_unix_nano) / 1_000_000n),
        endMs: Number(BigInt(span.end_time_unix_nano) / 1_000_000n),
        attributes: attributes(span.attributes),
        links: span.links.map((link) => ({
          traceId: hex(link.trace_id),
          spanId: hex(link.span_id),
          attributes: attributes(link.attributes),
        })),
        statusCode: span.status?.code ?? 0,
        resource: attributes(resourceSpans.resource?.attributes ?? []),
        scope: scopeSpans.scope?.name ?? '',
      })),
    ),
  );
}

/** OTLP/JSON: the same messages in lowerCamelCase, ids in hex, 64-bit integers as strings. */
function fromJson(body: Buffer): ReceivedSpan[] {
  type JsonKeyValue = { key: string; value?: Record<string, unknown> };
  const decoded = JSON.parse(body.toString('utf8')) as {
    resourceSpans: Array<{
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans: Array<{ scope?: { name: string }; spans: Array<Record<string, any>> }>;
    }>;
  };
  const jsonAttributes = (list: JsonKeyValue[] | undefined) =>
    attributes(
      (list ?? []).map(({ key, value }) => ({
        key,
        value: jsonAnyValue(value),
      })),
    );
  return decoded.resourceSpans.flatMap((resourceSpans) =>
    resourceSpans.scopeSpans.flatMap((scopeSpans) =>
      scopeSpans.spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        startMs: Number(BigInt(span.startTimeUnixNano) / 1_000_000n),
        endMs: Number(BigInt(span.endTimeUnixNano) / 1_000_000n),
        attributes: jsonAttributes(span.attributes),
        links: (span.links ?? []).map((link: Record<string, any>) => ({
          traceId: link.traceId,
          spanId: link.spanId,
          attributes: jsonAttributes(link.attributes),
        })),
        statusCode: span.status?.code ?? 0,
        resource: jsonAttributes(resourceSpans.resource?.attributes),
        scope: scopeSpans.scope?.name ?? '',
      })),
    ),
  );
}

function jsonAnyValue(value: Record<string, any> | undefined): DecodedAnyValue | undefined {
  if (!value) return undefined;
  if ('stringValue' in value) return { value: 'string_value', string_value: value.stringValue };
  if ('boolValue' in value) return { value: 'bool_value', bool_value: value.boolValue };
  if ('intValue' in value) return { value: 'int_value', int_value: String(value.intValue) };
  if ('doubleValue' in value) return { value: 'double_value', double_value: value.doubleValue };
  if ('arrayValue' in value)
    return { value: 'array_value', array_value: { values: (value.arrayValue.values ?? []).map(jsonAnyValue) } };
  return undefined;
}

function hex(bytes: Uint8Array | undefined): string {
  return Buffer.from(bytes ?? []).toString('hex');
}

function attributes(list: readonly DecodedKeyValue[]): Record<string, AttributeValue> {
  return Object.fromEntries(list.map(({ key, value }) => [key, anyValue(value)]));
}

function anyValue(value: DecodedAnyValue | undefined): AttributeValue {
  switch (value?.value) {
    case 'string_value':
      return value.string_value ?? '';
    case 'bool_value':
      return value.bool_value ?? false;
    case 'int_value':
      return Number(value.int_value ?? 0);
    case 'double_value':
      return value.double_value ?? 0;
    case 'array_value':
      return (value.array_value?.values ?? []).map(anyValue);
    case 'bytes_value':
      return hex(value.bytes_value);
    default:
      return null;
  }
}
