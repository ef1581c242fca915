import type { AgentDefinition, ClientToolDefinition, LedgerEntryRecord, TurnRecord } from '../domain/records.ts';
import type { EngineContext } from './engine-context.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import { toolsForTurn } from './turn-runner.ts';

/**
 * The definition of the tool a ledger call was made to, as its turn offers it: per-request
 * declarations, then the agent's own, then the app tools and toolsets it refers to. App tools
 * are read as they are now, so an edited response schema shows at once. Not found when the tool
 * is gone (its resource was deleted or the agent no longer refers to it).
 */
export async function toolForCall(
  context: EngineContext,
  entry: LedgerEntryRecord,
  turn: TurnRecord,
  agent: AgentDefinition,
): Promise<ClientToolDefinition> {
  const referenced = await context.tools.listTools(turn.appId, agent);
  const tool = toolsForTurn(agent, turn, referenced).find((candidate) => candidate.name === entry.toolName);
  if (!tool) {
    throw new BatonError(
      'tool_definition_not_found',
      `Tool '${entry.toolName}' of call '${entry.id}' is no longer defined for its agent; answer the call with any JSON result.`,
    );
  }
  return tool;
}
