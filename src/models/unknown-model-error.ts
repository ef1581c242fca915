/**
 * Thrown when a model id cannot be resolved: malformed, unknown provider, unknown scripted
 * program, or a provider that lacks required configuration. The stable `code` lets the HTTP layer
 * map it to a 4xx answer without matching on messages.
 */
export class UnknownModelError extends Error {
  readonly code = 'unknown_model';

  /** `detail` completes the sentence `Unknown model "<id>": …`. */
  constructor(
    readonly modelId: string,
    detail: string,
  ) {
    super(`Unknown model "${modelId}": ${detail}`);
    this.name = 'UnknownModelError';
  }
}
