import type { AppResourceRecord, JsonObject } from '../../domain/records.ts';
import type { OpenApiCompiler } from '../../tools/openapi/openapi-pool.ts';
import type { OpenApiToolset } from '../../tools/openapi/openapi-toolset.ts';
import { compileOpenApi } from './openapi-source.ts';

/** Compiled OpenAPI documents kept (parsing a large spec on every turn would dominate it). */
const MAX_COMPILED = 200;

/**
 * The OpenAPI documents of `openApiTool` Tools and `openApiToolset` Toolsets, compiled once per
 * resource revision: an update gets a new revision, so nothing stale is ever used. Compiling runs
 * in the OpenAPI workers (openapi-pool.ts); the event loop only builds the toolset from the result.
 */
export class CompiledOpenApi {
  private readonly documents = new Map<string, Promise<OpenApiToolset>>();

  constructor(private readonly compiler: OpenApiCompiler) {}

  /** The toolset of `source`, the OpenAPI member of `record`'s body. */
  compile(record: AppResourceRecord, source: JsonObject): Promise<OpenApiToolset> {
    const key = `${record.appId}/${record.collection}/${record.id}/${record.revision}`;
    let compiled = this.documents.get(key);
    if (!compiled) {
      compiled = compileOpenApi(source, this.compiler, record.appId);
      if (this.documents.size >= MAX_COMPILED) this.documents.delete(this.documents.keys().next().value ?? '');
      this.documents.set(key, compiled);
      compiled.catch(() => this.documents.delete(key));
    }
    return compiled;
  }
}
