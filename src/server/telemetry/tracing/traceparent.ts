import type { SpanContext } from '@opentelemetry/api';

/**
 * A span context as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`): how the context of
 * a paused run is stored with its calls, and read back by whoever resumes them.
 */
export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span context of a stored `traceparent`, marked remote; undefined when it is not one. */
export function parseTraceparent(text: string | undefined): SpanContext | undefined {
  const match = text === undefined ? null : TRACEPARENT.exec(text);
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return undefined;
  return { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true };
}
