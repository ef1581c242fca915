import { OpenApiPool } from '../../tools/openapi/openapi-pool.ts';
import { SandboxPool } from '../../tools/sandbox/sandbox-pool.ts';
import type { ToolSettings } from './tool-settings.ts';

/**
 * The worker-thread pools the server's tools run in, one per kind of untrusted work: the
 * JavaScript sandbox (jsFunction tools and tool fakes) and OpenAPI documents. Made once with the
 * Resources; no thread starts before the first task; closed when the server stops.
 */
export class ToolWorkers {
  readonly sandbox: SandboxPool;
  readonly openApi: OpenApiPool;

  constructor(readonly settings: ToolSettings) {
    this.sandbox = new SandboxPool({ size: settings.sandboxWorkers });
    this.openApi = new OpenApiPool({ size: settings.openApiWorkers, limits: settings.openApi });
  }

  async close(): Promise<void> {
    await Promise.all([this.sandbox.close(), this.openApi.close()]);
  }
}
