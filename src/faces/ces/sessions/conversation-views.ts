import type { AppRecord, ContentPart, ItemRecord, SessionRecord, ToolExecutor } from '../../../domain/records.ts';
import { appResourceName } from '../../../resources/apps/app-access.ts';
import type { ToolCallNames } from './tool-call-names.ts';
import { argsFromText, toolCallWire, toolResponseWire } from './tool-chunks.ts';

/** A CES `Conversation`: the persisted record of a session, with tool calls and responses as chunks. */
export interface ConversationView {
  name: string;
  startTime: string;
  endTime?: string;
  turnCount: number;
  entryAgent: string;
  source: 'LIVE';
  inputTypes: string[];
  turns?: { messages: MessageView[] }[];
}

interface MessageView {
  role: string;
  chunks: Record<string, unknown>[];
  eventTime: string;
}

export function conversationView(
  app: AppRecord,
  session: SessionRecord,
  agentName: string,
  items?: readonly ItemRecord[],
  names?: ToolCallNames,
): ConversationView {
  const view: ConversationView = {
    name: `${appResourceName(app)}/conversations/${session.id}`,
    startTime: session.createdAt,
    turnCount: session.turnCount,
    entryAgent: `${appResourceName(app)}/agents/${agentName}`,
    source: 'LIVE',
    inputTypes: [],
  };
  if (session.ended) view.endTime = session.updatedAt;
  if (items && names) {
    const { turns, inputTypes } = turnsOf(items, agentName, names);
    view.turns = turns;
    view.inputTypes = inputTypes;
  }
  return view;
}

/**
 * Groups the transcript into CES turns: each user input (text, files, or the client's tool
 * responses) opens a turn; the agent's texts and tool calls follow it. Calls Baton runs (server
 * tools, fakes) are the agent's, and so are their responses: they never open a turn. Placeholders
 * Baton wrote for asynchronous calls are left out, as are the answers to invalid and system calls,
 * whose calls are not shown: none of them was the client's response.
 */
function turnsOf(
  items: readonly ItemRecord[],
  agentName: string,
  names: ToolCallNames,
): { turns: { messages: MessageView[] }[]; inputTypes: string[] } {
  const turns: { messages: MessageView[] }[] = [];
  const inputTypes = new Set<string>();
  const executors = new Map<string, ToolExecutor>();
  // Outputs written together (one group) stay in one turn, even when a server response sits
  // between two of the client's.
  let turnGroup: string | null = null;
  const add = (role: string, chunk: Record<string, unknown>, item: ItemRecord, opensTurn: boolean): void => {
    let turn = turns[turns.length - 1];
    const lastMessage = turn?.messages[turn.messages.length - 1];
    if (!turn || (opensTurn && lastMessage?.role !== role && item.groupId !== turnGroup)) {
      turn = { messages: [] };
      turns.push(turn);
      turnGroup = item.groupId;
    }
    const last = turn.messages[turn.messages.length - 1];
    const lastChunk = last?.chunks[last.chunks.length - 1];
    // The agent's calls and the responses of its server calls are separate messages.
    const sameKind = role === 'user' || !lastChunk || 'toolResponse' in lastChunk === 'toolResponse' in chunk;
    if (last && last.role === role && sameKind) last.chunks.push(chunk);
    else turn.messages.push({ role, chunks: [chunk], eventTime: item.createdAt });
  };
  for (const item of items) {
    const payload = item.payload;
    if (payload.type === 'message') {
      const role = payload.role === 'assistant' ? agentName : payload.role;
      for (const part of payload.content) {
        if (payload.role === 'user') inputTypes.add(inputTypeOf(part));
        add(role, chunkOf(part), item, payload.role === 'user');
      }
    } else if (payload.type === 'reasoning') {
      // The model's reasoning is diagnostics (a run's `diagnosticInfo`), not a turn of the transcript.
      continue;
    } else if (payload.type === 'function_call') {
      executors.set(payload.callId, payload.executor);
      if (payload.executor === 'invalid' || payload.executor === 'system') continue;
      add(
        agentName,
        { toolCall: toolCallWire(payload.callId, names.identify(payload.name), argsFromText(payload.arguments)) },
        item,
        false,
      );
    } else {
      const executor = executors.get(payload.callId);
      if (executor === 'invalid' || executor === 'system') continue;
      const response = {
        toolResponse: toolResponseWire(payload.callId, names.identify(payload.name), payload.output, payload.isError),
      };
      if (executor === 'server' || executor === 'fake') {
        add(agentName, response, item, false);
        continue;
      }
      if (payload.synthetic && !payload.isError) continue;
      if (!payload.synthetic) inputTypes.add('INPUT_TYPE_TOOL_RESPONSE');
      add('user', response, item, true);
    }
  }
  return { turns, inputTypes: [...inputTypes] };
}

function chunkOf(part: ContentPart): Record<string, unknown> {
  if (part.type === 'text') return { text: part.text };
  if (part.type === 'image') return { image: { mimeType: part.mediaType, data: part.data } };
  return { blob: { mimeType: part.mediaType, data: part.data ?? '' } };
}

function inputTypeOf(part: ContentPart): string {
  if (part.type === 'text') return part.text.startsWith('[event] ') ? 'INPUT_TYPE_EVENT' : 'INPUT_TYPE_TEXT';
  return part.type === 'image' ? 'INPUT_TYPE_IMAGE' : 'INPUT_TYPE_BLOB';
}
