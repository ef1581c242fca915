import type { ClientToolDefinition, LedgerEntryRecord } from '../domain/records.ts';
import { clampToDurationRange, DURATION_RANGES } from '../domain/duration-ranges.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import { callLogIds } from './engine-log-ids.ts';
import type { ServerCallResult } from './ports/tool-provider.ts';
import type { ToolRunKind } from './ports/telemetry.ts';
import { resolveRan } from './ledger/ledger-transitions.ts';
import { TurnSupersededError } from './conversation-version.ts';

const DEFAULT_TIMEOUT_SECONDS = 30;
const CONCURRENCY = 4;

/**
 * Runs a step's server calls concurrently (at most four at a time), each under its tool's
 * timeout, and resolves their ledger rows in memory; the step commits them with everything else,
 * so after a pause for client calls nothing that already ran runs again.
 *
 * Each call is claimed first, in a commit of its own: if this process dies while the call runs,
 * the claim outlives it, and recovery records the call with an unknown outcome (`closeTurn`)
 * rather than forgetting that it ran. The step's commit releases the claims.
 */
export async function runServerCalls(
  context: EngineContext,
  entries: LedgerEntryRecord[],
  tools: ReadonlyMap<string, ClientToolDefinition>,
  signal: AbortSignal,
  useFakes: boolean,
  leaseToken: string | undefined,
): Promise<void> {
  // Rows a fake already answered are resolved; only pending server rows run.
  const queue = entries.filter((entry) => entry.kind === 'server' && entry.state === 'pending');
  await runBounded(queue, async (entry) => {
    await claimWhileRunning(context, entry, leaseToken);
    const tool = tools.get(entry.toolName);
    const result = tool
      ? await runOne(context, entry, tool, signal, useFakes, 'server')
      : { output: [{ type: 'text' as const, text: `Tool '${entry.toolName}' is gone.` }], isError: true };
    resolveRan(entry, result, nowIso(context));
  });
}

/**
 * Claims a call in one transaction with a touch of its turn, guarded on the turn still running
 * under this run's lease.
 * The touch locks the turn's row, so the claim and a recovery closing the turn (`closeTurn`) are
 * ordered: either the recovery sees the claim and records the call, or the claim sees the turn
 * closed and the call never runs. A process that lost its turn (a slow one, taken for dead) so
 * never runs a call nobody would record.
 */
async function claimWhileRunning(
  context: EngineContext,
  entry: LedgerEntryRecord,
  leaseToken: string | undefined,
): Promise<void> {
  await context.store.transaction(async (tx) => {
    const now = nowIso(context);
    const running = await tx.turns.update(entry.turnId, ['in_progress'], { updatedAt: now }, leaseToken);
    if (!running) throw new TurnSupersededError(entry.turnId);
    await tx.serverClaims.claim(entry, now);
  });
}

/** Runs `work` over `items`, at most four at a time: a step may call many tools of one slow API. */
export async function runBounded<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
}

/**
 * Runs one call (`kind`: in a step, or once approved), inside the telemetry's tool run; a timeout
 * or a thrown error becomes an error result the model can act on.
 */
export function runOne(
  context: EngineContext,
  entry: LedgerEntryRecord,
  tool: ClientToolDefinition,
  signal: AbortSignal,
  useFakes: boolean,
  kind: ToolRunKind,
): Promise<ServerCallResult> {
  return context.telemetry.toolRun(kind, entry, () => runGuarded(context, entry, tool, signal, useFakes));
}

async function runGuarded(
  context: EngineContext,
  entry: LedgerEntryRecord,
  tool: ClientToolDefinition,
  signal: AbortSignal,
  useFakes: boolean,
): Promise<ServerCallResult> {
  // Clamped, since any ToolProvider may hand a timeout: AbortSignal.timeout throws past about 49 days.
  const seconds = clampToDurationRange(tool.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, DURATION_RANGES.serverToolRun);
  const deadline = AbortSignal.timeout(seconds * 1000);
  try {
    // Raced against the signal too, so an executor that ignores it cannot hold the turn.
    const stop = AbortSignal.any([signal, deadline]);
    return await raceAbort(
      stop,
      context.tools.run({
        appId: entry.appId,
        conversationId: entry.conversationId,
        turnId: entry.turnId,
        callId: entry.id,
        agentName: entry.agentName,
        tool,
        arguments: entry.arguments,
        signal: stop,
        useFakes,
      }),
    );
  } catch (error) {
    if (deadline.aborted)
      return {
        output: [{ type: 'text', text: `Tool '${tool.name}' did not answer within ${seconds} s.` }],
        isError: true,
      };
    if (signal.aborted) throw error;
    context.logger.warn({ err: error, tool: tool.name, ...callLogIds(entry) }, 'server tool failed');
    return {
      output: [
        { type: 'text', text: `Tool '${tool.name}' failed: ${error instanceof Error ? error.message : String(error)}` },
      ],
      isError: true,
    };
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
