import type { ClientToolDefinition, LedgerEntryRecord } from '../domain/records.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import { runBounded } from './server-calls.ts';
import { answeredByFake, resolveRan } from './ledger/ledger-transitions.ts';
import type { PlannedCalls } from './step-calls.ts';

/**
 * Client calls whose function has fake mode on, in a turn that asks for fakes: the fake answers
 * them at once, as if Baton ran them, so a demo or an evaluation needs no client. A fake that
 * returns null leaves the call to the client as usual; one that fails answers with the error.
 */
export async function answerClientCallsWithFakes(
  context: EngineContext,
  planned: PlannedCalls,
  tools: ReadonlyMap<string, ClientToolDefinition>,
  signal: AbortSignal,
  useFakes: boolean,
): Promise<void> {
  const fake = context.tools.fake?.bind(context.tools);
  if (!useFakes || !fake) return;
  const candidates = planned.entries.filter(
    (entry) => (entry.kind === 'client' || entry.kind === 'client_async') && tools.get(entry.toolName)?.fake,
  );
  await runBounded(candidates, async (entry) => {
    const tool = tools.get(entry.toolName);
    if (!tool) return;
    const result = await context.telemetry.toolRun('fake', entry, async () => {
      try {
        return await fake({
          appId: entry.appId,
          conversationId: entry.conversationId,
          turnId: entry.turnId,
          callId: entry.id,
          agentName: entry.agentName,
          tool,
          arguments: entry.arguments,
          signal,
          useFakes,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        return {
          output: [
            {
              type: 'text' as const,
              text: `The fake of tool '${tool.name}' failed: ${error instanceof Error ? error.message : String(error)}`,
            },
          ],
          isError: true,
          faked: true,
        };
      }
    });
    if (result === null) return;
    resolveRan(entry, { ...result, faked: true }, nowIso(context));
  });
  // An asynchronous call answered by its fake needs no "result comes later" placeholder.
  const faked = new Set(candidates.filter(isFaked).map((entry) => entry.id));
  planned.immediateOutputs = planned.immediateOutputs.filter(
    (item) => !(item.payload.type === 'function_call_output' && faked.has(item.payload.callId)),
  );
}

/** Marks the call items a fake answered (client functions or server tools) as `executor: 'fake'`. */
export function markFakedCalls(planned: PlannedCalls): void {
  const faked = new Set(planned.entries.filter(isFaked).map((entry) => entry.id));
  for (const item of planned.callItems) {
    if (item.payload.type === 'function_call' && faked.has(item.payload.callId)) item.payload.executor = 'fake';
  }
}

function isFaked(entry: LedgerEntryRecord): boolean {
  return answeredByFake(entry);
}
