import { siblingModule } from '../workers/sibling-module.ts';
import { WorkerPool, type WorkerPoolStats } from '../workers/worker-pool.ts';
import { WorkerPoolError } from '../workers/worker-pool-error.ts';
import { OpenApiError } from './openapi-error.ts';
import { DEFAULT_OPENAPI_LIMITS, checkDocumentSize, OpenApiLimitError, type OpenApiLimits } from './openapi-limits.ts';
import { OpenApiToolset, type OpenApiToolsetOptions } from './openapi-toolset.ts';
import { openApiErrorFrom, type OpenApiTask, type OpenApiTaskOutcome } from './openapi-worker.ts';

/**
 * Reads OpenAPI documents into toolsets. Reading one (YAML parsing, validation, dereferencing,
 * schema conversion) costs from a few hundred milliseconds to, for a hostile document, minutes of
 * CPU, so the server never does it on its event loop: `OpenApiPool` reads in worker threads
 * (openapi-worker.ts), past `timeoutMs` the worker is terminated and the document refused as too
 * complex, and only the result crosses back, from which building the toolset is cheap.
 */
export interface OpenApiCompiler {
  readonly limits: OpenApiLimits;
  /**
   * The toolset of `text`; throws OpenApiError for a document that cannot be used
   * (OpenApiLimitError past a limit), or WorkerPoolError when no worker could take it.
   */
  compile(text: string, options: OpenApiToolsetOptions, owner: string): Promise<OpenApiToolset>;
}

/** Reads documents in the calling thread: for tests and tools, never the server's event loop. */
export function inThreadOpenApi(limits: OpenApiLimits = DEFAULT_OPENAPI_LIMITS): OpenApiCompiler {
  return { limits, compile: (text, options) => OpenApiToolset.fromText(text, options, limits) };
}

/** A worker's V8 heap limit: a document whose expansion outgrows it kills the worker, not the server. */
const WORKER_HEAP_MB = 512;
/** The least a document may wait for a worker (a cold worker takes about two seconds to start). */
const MIN_WAIT_MS = 10_000;

export interface OpenApiPoolOptions {
  readonly size: number;
  readonly limits: OpenApiLimits;
}

export class OpenApiPool implements OpenApiCompiler {
  readonly limits: OpenApiLimits;
  private readonly pool: WorkerPool;

  constructor(options: OpenApiPoolOptions) {
    this.limits = options.limits;
    this.pool = new WorkerPool({
      name: 'OpenAPI',
      module: siblingModule(import.meta.url, 'openapi-worker'),
      size: options.size,
      maxHeapMb: WORKER_HEAP_MB,
    });
  }

  async compile(text: string, options: OpenApiToolsetOptions, owner: string): Promise<OpenApiToolset> {
    // Cheap, and it spares sending megabytes to a worker only to refuse them there.
    checkDocumentSize(text, this.limits);
    const { timeoutMs } = this.limits;
    let outcome: OpenApiTaskOutcome;
    try {
      outcome = await this.pool.run<OpenApiTaskOutcome>({ text, options, limits: this.limits } satisfies OpenApiTask, {
        owner,
        runMs: timeoutMs,
        waitMs: Math.max(MIN_WAIT_MS, timeoutMs),
      });
    } catch (error) {
      throw translate(error, timeoutMs);
    }
    if (!outcome.ok) throw openApiErrorFrom(outcome.error);
    return OpenApiToolset.fromData(outcome.data);
  }

  stats(): WorkerPoolStats {
    return this.pool.stats();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function translate(error: unknown, timeoutMs: number): unknown {
  if (!(error instanceof WorkerPoolError)) return error;
  if (error.reason === 'deadline') {
    return new OpenApiLimitError(
      'timeout_seconds',
      `reading the OpenAPI document took longer than ${timeoutMs / 1000} s and was stopped; simplify its schemas`,
    );
  }
  if (error.reason === 'crashed' && /memory limit/i.test(error.message)) {
    return new OpenApiLimitError(
      'memory',
      `reading the OpenAPI document needed more memory than a worker has (${WORKER_HEAP_MB} MiB) and was stopped; simplify its schemas`,
    );
  }
  if (error.reason === 'task_failed') return new OpenApiError(`the OpenAPI document cannot be read: ${error.message}`);
  return error;
}
