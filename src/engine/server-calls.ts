import type { AgentDefinition, ClientToolDefinition, ContentPart, JsonValue, LedgerEntryRecord } from '../store/records.ts';
import { nowIso, type EngineContext } from './engine-context.ts';

/** One call Baton runs itself, as the tools layer receives it. */
export interface ServerCall {
  appId: string;
  conversationId: string;
  turnId: string;
  callId: string;
  tool: ClientToolDefinition;
  arguments: JsonValue;
  /** Aborted on cancel, on shutdown and at the call's deadline. */
  signal: AbortSignal;
}

export interface ServerCallResult {
  output: ContentPart[];
  isError: boolean;
}

/**
 * Server-executed tools (OpenAPI, MCP toolsets, sandboxed JavaScript) as the engine sees them:
 * a list of definitions per agent and a way to run a call. Implemented outside the engine, which
 * never makes a network call itself.
 */
export interface ToolProvider {
  /** The server tools an agent may call (from its tools and toolsets), read when a turn starts. */
  listServerTools(appId: string, agent: AgentDefinition): Promise<ClientToolDefinition[]>;
  /** Runs one call. Failures the model should see are results with `isError`, not exceptions. */
  run(call: ServerCall): Promise<ServerCallResult>;
}

/** The provider when no server tools are configured: agents get none. */
export const NO_SERVER_TOOLS: ToolProvider = {
  listServerTools: async () => [],
  run: async (call) => ({ output: [{ type: 'text', text: `Tool '${call.tool.name}' has no executor on this server.` }], isError: true }),
};

const DEFAULT_TIMEOUT_SECONDS = 30;
const CONCURRENCY = 4;

/**
 * Runs a step's server calls concurrently (at most four at a time), each under its tool's
 * timeout, and resolves their ledger rows in memory; the step commits them with everything else,
 * so after a pause for client calls nothing that already ran runs again.
 */
export async function runServerCalls(
  context: EngineContext,
  entries: LedgerEntryRecord[],
  tools: ReadonlyMap<string, ClientToolDefinition>,
  signal: AbortSignal,
): Promise<void> {
  const queue = entries.filter((entry) => entry.kind === 'server');
  const worker = async (): Promise<void> => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      const tool = tools.get(entry.toolName);
      const result = tool ? await runOne(context, entry, tool, signal) : { output: [{ type: 'text' as const, text: `Tool '${entry.toolName}' is gone.` }], isError: true };
      resolveInMemory(entry, result, nowIso(context));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
}

/** Runs one call; a timeout or a thrown error becomes an error result the model can act on. */
export async function runOne(context: EngineContext, entry: LedgerEntryRecord, tool: ClientToolDefinition, signal: AbortSignal): Promise<ServerCallResult> {
  const seconds = tool.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const deadline = AbortSignal.timeout(seconds * 1000);
  try {
    // Raced against the signal too, so an executor that ignores it cannot hold the turn.
    const stop = AbortSignal.any([signal, deadline]);
    return await raceAbort(stop, context.tools.run({
      appId: entry.appId,
      conversationId: entry.conversationId,
      turnId: entry.turnId,
      callId: entry.id,
      tool,
      arguments: entry.arguments,
      signal: stop,
    }));
  } catch (error) {
    if (deadline.aborted) return { output: [{ type: 'text', text: `Tool '${tool.name}' did not answer within ${seconds} s.` }], isError: true };
    if (signal.aborted) throw error;
    context.logger.warn({ err: error, tool: tool.name, callId: entry.id }, 'server tool failed');
    return { output: [{ type: 'text', text: `Tool '${tool.name}' failed: ${error instanceof Error ? error.message : String(error)}` }], isError: true };
  }
}

function raceAbort<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function resolveInMemory(entry: LedgerEntryRecord, result: ServerCallResult, now: string): void {
  entry.state = result.isError ? 'failed' : 'completed';
  entry.result = result.output;
  entry.isError = result.isError;
  entry.submittedBy = 'baton:server';
  entry.submittedAt = now;
  entry.updatedAt = now;
}
