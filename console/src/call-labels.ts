import type { CallKind, CallState } from './api-types.ts';

/** Words a person reads for the ledger's kinds and states. */
export const KIND_LABEL: Record<CallKind, string> = {
  approval: 'Approval',
  client: 'Client function',
  client_async: 'Client function (async)',
  server: 'Server tool',
};

export const STATE_LABEL: Record<CallState, string> = {
  pending: 'Pending',
  completed: 'Completed',
  failed: 'Failed',
  denied: 'Denied',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

/** One line of JSON, cut to fit a row; the call page shows it whole. */
export function previewJson(value: unknown, max = 140): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Pretty JSON for a <pre>; strings that hold JSON (tool results usually do) are unfolded. */
export function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
