import type { AgentDefinition, PausedResponseStatus } from '../../domain/records.ts';

/**
 * The two dialects of the Responses face. They share every route, wire shape and rule and differ
 * in one word: the `status` of a response whose turn waits for the client's function_call
 * outputs.
 *
 * - `open-responses` (`/v1/responses`): OpenAI and the Open Responses spec. Such a response is
 *   `completed`, with its `function_call` items in `output`; typed clients and the compliance
 *   suite know no other status. Baton's own run state is beside it, in `baton_run.status`.
 * - `nodexa` (`/nodexa/v1/responses`): the Nodexa seed's. Such a response is `requires_action`,
 *   which the seed's loops (`while (response.status === 'requires_action')`) test, in the JSON,
 *   on GET and in the streamed `response.completed` event.
 *
 * A deployment whose clients cannot change their base URL gives `/v1` the Nodexa status per
 * agent, with `paused_response_status: requires_action`.
 */
export type ResponsesDialect = 'open-responses' | 'nodexa';

/** Where each dialect's routes live: `${base}/responses…`. */
export const DIALECT_BASES: Readonly<Record<ResponsesDialect, string>> = {
  'open-responses': '/v1',
  nodexa: '/nodexa/v1',
};

/** The status a waiting response shows: the Nodexa path says `requires_action`, `/v1` asks the agent. */
export function pausedStatusFor(
  dialect: ResponsesDialect,
  agent: Pick<AgentDefinition, 'pausedResponseStatus'> | null,
): PausedResponseStatus {
  if (dialect === 'nodexa') return 'requires_action';
  return agent?.pausedResponseStatus ?? 'completed';
}
