import type { AppRecord, ContentPart, ItemRecord, SessionRecord } from '../../../store/records.ts';
import { appResourceName } from '../app-access.ts';
import type { ToolCallNames } from './tool-call-names.ts';

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

export function conversationView(app: AppRecord, session: SessionRecord, agentName: string, items?: readonly ItemRecord[], names?: ToolCallNames): ConversationView {
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
 * Groups the transcript into CES turns: each user input (text, files, or tool responses) opens a
 * turn; the agent's texts and tool calls follow it. Placeholders Baton wrote for asynchronous
 * calls are left out: they were never the client's response.
 */
function turnsOf(items: readonly ItemRecord[], agentName: string, names: ToolCallNames): { turns: { messages: MessageView[] }[]; inputTypes: string[] } {
  const turns: { messages: MessageView[] }[] = [];
  const inputTypes = new Set<string>();
  const add = (role: string, chunk: Record<string, unknown>, eventTime: string, opensTurn: boolean): void => {
    let turn = turns[turns.length - 1];
    const lastMessage = turn?.messages[turn.messages.length - 1];
    if (!turn || (opensTurn && lastMessage?.role !== role)) {
      turn = { messages: [] };
      turns.push(turn);
    }
    const last = turn.messages[turn.messages.length - 1];
    if (last && last.role === role) last.chunks.push(chunk);
    else turn.messages.push({ role, chunks: [chunk], eventTime });
  };
  for (const item of items) {
    const payload = item.payload;
    if (payload.type === 'message') {
      const role = payload.role === 'assistant' ? agentName : payload.role;
      for (const part of payload.content) {
        if (payload.role === 'user') inputTypes.add(inputTypeOf(part));
        add(role, chunkOf(part), item.createdAt, payload.role === 'user');
      }
    } else if (payload.type === 'function_call') {
      if (payload.executor !== 'client') continue;
      const identity = names.identify(payload.name);
      add(agentName, { toolCall: { id: payload.callId, tool: identity.tool, displayName: identity.displayName, args: parseObject(payload.arguments) } }, item.createdAt, false);
    } else {
      if (payload.synthetic && !payload.isError) continue;
      const identity = names.identify(payload.name);
      const text = payload.output.map((part) => (part.type === 'text' ? part.text : '')).join('');
      const value = parseJson(text);
      if (!payload.synthetic) inputTypes.add('INPUT_TYPE_TOOL_RESPONSE');
      add(
        'user',
        { toolResponse: { id: payload.callId, tool: identity.tool, displayName: identity.displayName, response: payload.isError ? { error: value } : { output: value } } },
        item.createdAt,
        true,
      );
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function parseObject(text: string): unknown {
  const value = parseJson(text);
  return typeof value === 'object' && value !== null ? value : {};
}
