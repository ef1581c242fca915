import { randomUUID } from 'node:crypto';
import type {
  AgentDefinition,
  AgentRecord,
  AppRecord,
  ConversationRecord,
  LedgerEntryRecord,
  NewItem,
  ResponseRecord,
  TurnRecord,
} from '../../src/domain/records.ts';
import type { Store } from '../../src/store/store.ts';

/** Record builders. Ids are unique per call so tests sharing one database never collide. */

export function uid(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

const EPOCH = Date.UTC(2024, 0, 1);

/** A fixed ISO time `seconds` after 2024-01-01T00:00:00Z, so ordering by time is deterministic. */
export function at(seconds: number): string {
  return new Date(EPOCH + seconds * 1000).toISOString();
}

export function appRecord(overrides: Partial<AppRecord> = {}): AppRecord {
  return {
    id: uid('app'),
    name: uid('name'),
    project: 'default',
    location: 'global',
    settings: {},
    revision: 1,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function agentDefinition(name: string, overrides: Partial<AgentDefinition> = {}): AgentDefinition {
  return {
    name,
    model: 'scripted:auto',
    instructions: 'Be brief.',
    tools: [
      {
        name: 'get_weather',
        description: 'Weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        timeoutSeconds: 30,
      },
    ],
    maxSteps: 8,
    parallelToolCalls: true,
    toolTimeoutSeconds: null,
    timeoutPolicy: 'error_result',
    inputPolicy: 'reject',
    historyLimit: 50,
    ...overrides,
  };
}

export function agentRecord(appId: string, name: string, overrides: Partial<AgentRecord> = {}): AgentRecord {
  return {
    id: uid('agent'),
    appId,
    name,
    version: 1,
    definition: agentDefinition(name),
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function conversationRecord(
  agent: AgentRecord,
  overrides: Partial<ConversationRecord> = {},
): ConversationRecord {
  return {
    id: uid('conv'),
    appId: agent.appId,
    agentId: agent.id,
    agentName: agent.name,
    version: 0,
    activeTurnId: null,
    headTurnId: null,
    metadata: { customer: 'c-42' },
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function turnRecord(conversation: ConversationRecord, overrides: Partial<TurnRecord> = {}): TurnRecord {
  return {
    id: uid('turn'),
    appId: conversation.appId,
    conversationId: conversation.id,
    agentId: conversation.agentId,
    agentVersion: 1,
    status: 'in_progress',
    options: { tools: [], toolChoice: 'auto' },
    finishReason: null,
    error: null,
    stepCount: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    createdAt: at(0),
    updatedAt: at(0),
    completedAt: null,
    leaseToken: null,
    takeovers: 0,
    requestKey: null,
    ...overrides,
  };
}

export function userMessage(turn: TurnRecord, text: string, overrides: Partial<NewItem> = {}): NewItem {
  return {
    id: uid('item'),
    conversationId: turn.conversationId,
    turnId: turn.id,
    groupId: uid('group'),
    payload: { type: 'message', role: 'user', content: [{ type: 'text', text }] },
    createdAt: at(1),
    ...overrides,
  };
}

export function ledgerEntry(
  turn: Pick<TurnRecord, 'id' | 'appId' | 'conversationId'>,
  agentName: string,
  overrides: Partial<LedgerEntryRecord> = {},
): LedgerEntryRecord {
  return {
    id: uid('call'),
    appId: turn.appId,
    conversationId: turn.conversationId,
    turnId: turn.id,
    agentName,
    toolName: 'get_weather',
    kind: 'client',
    arguments: { city: 'Paris' },
    argumentsHash: 'hash-of-args',
    callIndex: 0,
    state: 'pending',
    deadlineAt: null,
    timeoutPolicy: 'error_result',
    result: null,
    isError: false,
    submittedBy: null,
    submittedAt: null,
    idempotencyKey: null,
    createdAt: at(10),
    updatedAt: at(10),
    ...overrides,
  };
}

export function responseRecord(turn: TurnRecord, overrides: Partial<ResponseRecord> = {}): ResponseRecord {
  return {
    id: uid('resp'),
    appId: turn.appId,
    conversationId: turn.conversationId,
    turnId: turn.id,
    previousResponseId: null,
    inputFirstSeq: 1,
    inputLastSeq: 1,
    usageBefore: { inputTokens: 0, outputTokens: 0 },
    echo: { model: 'support' },
    stored: true,
    ownsConversation: true,
    createdAt: at(1),
    ...overrides,
  };
}

export interface Seeded {
  app: AppRecord;
  agent: AgentRecord;
  conversation: ConversationRecord;
  turn: TurnRecord;
}

/** An app with one agent, one conversation and one in-progress turn: the parents most rows need. */
export async function seedTurn(store: Store, agentName = 'support'): Promise<Seeded> {
  const app = appRecord();
  await store.apps.insert(app);
  const agent = agentRecord(app.id, agentName);
  await store.agents.insert(agent);
  const conversation = conversationRecord(agent);
  await store.conversations.insert(conversation);
  const turn = turnRecord(conversation);
  await store.turns.insert(turn);
  return { app, agent, conversation, turn };
}

/** Another turn on the same conversation (e.g. to tell turns apart). */
export async function addTurn(
  store: Store,
  conversation: ConversationRecord,
  overrides: Partial<TurnRecord> = {},
): Promise<TurnRecord> {
  const turn = turnRecord(conversation, overrides);
  await store.turns.insert(turn);
  return turn;
}

/** Another conversation of the same agent. */
export async function addConversation(
  store: Store,
  agent: AgentRecord,
): Promise<{ conversation: ConversationRecord; turn: TurnRecord }> {
  const conversation = conversationRecord(agent);
  await store.conversations.insert(conversation);
  const turn = await addTurn(store, conversation);
  return { conversation, turn };
}
