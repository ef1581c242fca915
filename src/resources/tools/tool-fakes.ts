import type { ServerCall, ServerCallResult } from '../../engine/index.ts';
import type { AppResourceRecord } from '../../domain/records.ts';
import { runFake } from '../../tools/sandbox/fake-runner.ts';
import { SandboxError } from '../../tools/sandbox/sandbox-error.ts';
import type { SandboxRunner } from '../../tools/sandbox/sandbox-runner.ts';
import { isJsonObject } from '../json-objects.ts';
import { sandboxContext, type CallEnvironment } from './call-environment.ts';
import { jsonResult, textResult } from './tool-results.ts';

/** A fake is a test double: it gets a short leash whatever the real tool's timeout. */
const FAKE_TIMEOUT_MS = 1_000;

/**
 * Runs a Tool's or Toolset's fake (`toolFakeConfig` with fake mode on and `jsCode`) for one call.
 * Null means "no fake here, or the fake returned null": run the real tool (for a client function,
 * hand the call to the client). A fake that fails answers with the error, marked as faked, so a
 * broken fake is seen in the demo rather than silently replaced by the real tool.
 */
export async function runToolFake(
  record: AppResourceRecord,
  toolId: string,
  call: ServerCall,
  environment: CallEnvironment,
  sandbox: SandboxRunner,
): Promise<ServerCallResult | null> {
  const config = record.body.toolFakeConfig;
  if (!isJsonObject(config) || config.enableFakeMode !== true) return null;
  const jsCode = isJsonObject(config.codeBlock) ? config.codeBlock.jsCode : undefined;
  if (typeof jsCode !== 'string' || jsCode.trim() === '') return null;
  try {
    const outcome = await runFake({
      sandbox,
      owner: environment.appId,
      signal: environment.signal,
      jsCode,
      tool: { id: toolId, name: call.tool.name, displayName: call.tool.name },
      input: call.arguments,
      context: sandboxContext(environment),
      limits: { timeoutMs: Math.max(1, Math.floor(Math.min(FAKE_TIMEOUT_MS, environment.timeoutMs))) },
    });
    return outcome.kind === 'fake' ? { ...jsonResult(outcome.result), faked: true } : null;
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    return { ...textResult(`The fake of tool '${call.tool.name}' failed: ${error.message}`, true), faked: true };
  }
}
