import { BatonError } from '../../domain/errors/baton-error.ts';
import type { AgentDefinition, ClientToolDefinition, TurnRecord } from '../../domain/records.ts';
import type { EngineContext } from '../engine-context.ts';
import { checkToolResult } from '../tool-schema.ts';
import { toolsForTurn } from '../turn-runner.ts';
import type { MatchedResult } from './result-intake.ts';

/**
 * Checks each result against the response schema its tool enforces (`enforceResponseSchema`),
 * before anything is written: a result that does not fit is refused with the field and the
 * problem, and its call stays pending for a corrected one. Error results are not checked: a
 * failure need not look like a success. The turn's own tools are looked at first; the app's
 * tools (read from their resources) only when a call's tool is not among them.
 */
export async function checkEnforcedResponseSchemas(
  context: EngineContext,
  turn: TurnRecord,
  agent: AgentDefinition,
  results: readonly MatchedResult[],
): Promise<void> {
  const checked = results.filter(({ result }) => !result.isError);
  if (checked.length === 0) return;
  let tools = new Map(toolsForTurn(agent, turn).map((tool) => [tool.name, tool]));
  if (checked.some(({ entry }) => !tools.has(entry.toolName))) {
    const referenced = await context.tools.listTools(turn.appId, agent);
    tools = new Map(toolsForTurn(agent, turn, referenced).map((tool) => [tool.name, tool]));
  }
  for (const { result, entry } of checked) {
    const tool: ClientToolDefinition | undefined = tools.get(entry.toolName);
    if (tool?.enforceResponseSchema !== true || tool.responseSchema === undefined) continue;
    const check = checkToolResult(tool.responseSchema, result.output);
    if (check.ok) continue;
    throw new BatonError(
      'invalid_tool_result',
      `Invalid result at ${result.param} for tool call '${entry.id}' (${entry.toolName}): ${check.problem}. ` +
        `The tool enforces its response_schema; fix the result and send it again (the call is still pending).`,
      {
        param: result.param,
        details: { tool_call_id: entry.id, tool: entry.toolName, response_schema: tool.responseSchema },
      },
    );
  }
}
