import type { ClientToolDefinition } from '../domain/records.ts';

/**
 * Built-in tools Baton runs itself, offered to an agent that refers to them by id (as CES agents
 * refer to system tools). `end_session` ends the conversation: the turn stops after the call and
 * faces that have sessions (CES) close the session.
 */
export const END_SESSION_TOOL = 'end_session';

export const SYSTEM_TOOLS: Readonly<Record<string, ClientToolDefinition>> = {
  [END_SESSION_TOOL]: {
    name: END_SESSION_TOOL,
    description:
      'End the conversation with the user, for example when they say goodbye or the task is done. Nothing more can be said afterwards.',
    parameters: {
      type: 'object',
      properties: { reason: { type: 'string', description: 'Why the session ends.' } },
      additionalProperties: false,
    },
    system: true,
  },
};

/** What running a system tool gives back: its output, and whether the turn stops there. */
export function runSystemTool(name: string): { output: string; endsTurn: boolean } {
  if (name === END_SESSION_TOOL) return { output: '{"ended":true}', endsTurn: true };
  return { output: `{"error":"unknown system tool ${name}"}`, endsTurn: false };
}
