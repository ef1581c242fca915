/** Per-call settings every API method takes. */
export interface CallOptions {
  signal?: AbortSignal;
  /** For POSTs: reuse a key to make a repeat of this request replay its first outcome. Default: a fresh key per call. */
  idempotencyKey?: string;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
}

/** The call options as transport request fields. */
export function callSettings(options: CallOptions | undefined): {
  signal: AbortSignal | undefined;
  idempotencyKey: string | undefined;
  timeoutMs: number | undefined;
} {
  return { signal: options?.signal, idempotencyKey: options?.idempotencyKey, timeoutMs: options?.timeoutMs };
}
