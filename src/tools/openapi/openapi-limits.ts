import { OpenApiError } from './openapi-error.ts';

/**
 * How much an OpenAPI document may cost to read. A document is small text, but its `$ref`s can
 * make it expand into far more: forty schemas that each point twice to the next are 5 KB and
 * expand to 2^40 nodes, and everything that walks the dereferenced document (validation, schema
 * conversion, argument validators, the model's tool definitions) walks the expansion. So the
 * expansion is measured on the document as written, in linear time, before it is dereferenced
 * (openapi-expansion.ts), and a document past a limit is refused naming that limit. Reading runs
 * in a worker thread under a wall-clock budget besides (openapi-pool.ts), in case something
 * slips past these counts.
 */
export interface OpenApiLimits {
  /** The document's size in UTF-8 bytes. */
  readonly maxBytes: number;
  /** `$ref`s replaced when the document is dereferenced, counting each time a reference is reached again. */
  readonly maxRefs: number;
  /** Nesting of objects and arrays in the dereferenced document (a recursive `$ref` stays a leaf). */
  readonly maxDepth: number;
  /** Wall-clock budget for reading, validating and converting one document in a worker, ms. */
  readonly timeoutMs: number;
}

export const DEFAULT_OPENAPI_LIMITS: Readonly<OpenApiLimits> = Object.freeze({
  maxBytes: 2 * 1024 * 1024,
  maxRefs: 2_000,
  maxDepth: 64,
  timeoutMs: 10_000,
});

/** Which limit a document passed: the configuration key's last part (`tools.openapi.<limit>`). */
export type OpenApiLimitName = 'max_bytes' | 'max_refs' | 'max_depth' | 'timeout_seconds' | 'memory';

/** A document refused for its size or its expansion rather than for what it says. */
export class OpenApiLimitError extends OpenApiError {
  constructor(
    readonly limit: OpenApiLimitName,
    message: string,
  ) {
    super(message);
  }
}

/** Refuses text larger than the byte limit; cheap enough to run anywhere (it does not parse). */
export function checkDocumentSize(text: string, limits: Pick<OpenApiLimits, 'maxBytes'>): void {
  // A UTF-16 unit is at most 3 UTF-8 bytes, so shorter text cannot pass the limit: no need to count.
  if (text.length <= limits.maxBytes / 3) return;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxBytes) {
    throw new OpenApiLimitError(
      'max_bytes',
      `the OpenAPI document is ${bytes} bytes, more than the limit of ${limits.maxBytes} bytes`,
    );
  }
}
