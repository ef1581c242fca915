import { describe, expect, it } from 'vitest';
import { redactedUrl } from '../../../src/server/telemetry/tracing/tracing-runtime.ts';
import { formatTraceparent, parseTraceparent } from '../../../src/server/telemetry/tracing/traceparent.ts';

/** What leaves in a trace about a tool's HTTP call, and how a paused run's context is stored. */
describe('trace details', () => {
  it('keeps the names of a URL’s query parameters and replaces their values (a key may ride there)', () => {
    expect(redactedUrl('https://api.example.com', '/pets?api_key=s3cret&limit=5&limit=6')).toEqual({
      'url.full': 'https://api.example.com/pets?api_key=REDACTED&limit=REDACTED',
      'url.query': '?api_key=REDACTED&limit=REDACTED',
    });
    // Without a query nothing is overridden: the instrumentation's own url.full stands.
    expect(redactedUrl('https://api.example.com', '/pets/1')).toEqual({});
  });

  it('stores a span context as a W3C traceparent and reads it back, refusing anything else', () => {
    const context = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
    const text = formatTraceparent(context);
    expect(text).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(parseTraceparent(text)).toEqual({ ...context, isRemote: true });
    for (const bad of [undefined, '', 'garbage', '00-00000000000000000000000000000000-b7ad6b7169203331-01'])
      expect(parseTraceparent(bad)).toBeUndefined();
  });
});
