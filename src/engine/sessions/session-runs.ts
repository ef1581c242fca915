import { BatonError } from '../../domain/errors/baton-error.ts';
import type {
  AgentDefinition,
  ContentPart,
  ConversationRecord,
  ItemRecord,
  JsonObject,
  LedgerEntryRecord,
  SessionRecord,
  TurnOptions,
} from '../../domain/records.ts';
import type { Repositories } from '../../store/store.ts';
import { DuplicateKeyError } from '../../store/store.ts';
import type { EngineContext } from '../engine-context.ts';
import { isQueuedOutcome, type RunOptions } from '../engine-types.ts';
import type { EngineEvent, EngineEventListener } from '../events.ts';
import type { InputItem } from '../input-items.ts';
import type { SubmissionActor } from '../ledger/ledger-transitions.ts';
import { END_SESSION_TOOL } from '../system-tools.ts';
import type { TurnOutcome } from '../turn-runner.ts';
import type { SessionEngine } from './session-engine.ts';
import { matchResponses, type SessionResponse } from './response-matching.ts';
import { approvalPending, responsesPending } from './session-lock-errors.ts';

/** Session ids are chosen by the client: 1–128 URL-safe characters. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_.~-]{1,128}$/;

/** What a face is told when a run starts, to follow it: the agent and the turn's index in the session. */
export interface SessionRunStart {
  agentName: string;
  /** The agent's current definition (absent if it was deleted meanwhile). */
  agent: AgentDefinition | undefined;
  /** 1 for a session's first turn. */
  turnIndex: number;
}

/**
 * How a face follows a run, once it knows the agent: the responses in its terms (matched to calls
 * by the tools the agent names), the turn's events, and the outputs written when a paused turn resumes.
 */
export interface SessionRunObserver {
  /** The request's responses, in request order. */
  responses: SessionResponse[];
  listener: EngineEventListener;
  /**
   * Items a request added without events: the outputs written when a paused turn resumes, with
   * the turn's ledger rows so the server calls among them pair with their calls.
   */
  accepted(items: readonly ItemRecord[], entries: readonly LedgerEntryRecord[]): void;
}

/** One request to a session: its input, and how to follow the run. */
export interface SessionRun {
  appId: string;
  sessionId: string;
  /** The agent a new session starts with (resolved by the caller: an entry agent, or the app's root). */
  entryAgent(): Promise<string>;
  /** One user message, in input order (empty when the request only answers calls). */
  parts: ContentPart[];
  /** Where each tool response sits in the request; the observer gives them in full. */
  responseParams: readonly string[];
  /** Variables to merge into the session before anything runs. */
  variables: JsonObject | null;
  options: TurnOptions;
  submission: SubmissionActor;
  observe(start: SessionRunStart): Promise<SessionRunObserver>;
}

/** How a request to a session ended. */
export type SessionRunOutcome =
  /** Nothing to run: a new session that only set variables, or an existing one given no input. */
  | { kind: 'idle' }
  /** The turn ran (to its end, or to a pause); `ended` is set when the agent ended the session. */
  | { kind: 'ran'; outcome: TurnOutcome; ended: boolean }
  /** Some of the calls the session waits for were answered; the others (and any approvals) still wait. */
  | { kind: 'partial'; missing: LedgerEntryRecord[]; approvals: LedgerEntryRecord[] };

/**
 * Sessions (CES) on the engine: a conversation with a client-chosen id, the variables its tools
 * read, a count of its turns, and a lock. While a synchronous client call is pending, the session
 * takes only the responses it owes (new input may follow once every call is answered); while an
 * approval is undecided, only a person deciding it through the ledger unlocks it. Responses may
 * arrive one at a time (two approvers); the turn resumes when the last one does.
 */
export class SessionRuns {
  constructor(
    private readonly context: EngineContext,
    private readonly engine: SessionEngine,
  ) {}

  async run(request: SessionRun): Promise<SessionRunOutcome> {
    const { appId, sessionId } = request;
    const store = this.context.store;
    const runOptions = (onAccepted?: RunOptions['onAccepted']): RunOptions => ({
      submission: request.submission,
      allowQueue: false,
      ...(onAccepted ? { onAccepted } : {}),
    });

    let session = await store.sessions.get(appId, sessionId);
    if (session?.ended) {
      throw new BatonError('session_ended', `Session '${sessionId}' has ended; start a new session id to talk again.`, {
        data: { session_id: sessionId },
      });
    }
    if (!session) {
      const agentName = await request.entryAgent();
      const [stray] = request.responseParams;
      if (stray !== undefined) {
        throw new BatonError(
          'unknown_tool_call',
          `Session '${sessionId}' is new and has no tool calls to respond to; remove the tool responses.`,
          { param: stray, data: { session_id: sessionId, new_session: true } },
        );
      }
      if (request.parts.length === 0) {
        await this.startQuietly(appId, sessionId, agentName, request.variables ?? {});
        return { kind: 'idle' };
      }
      const agent = (await store.agents.get(appId, agentName))?.definition;
      const observer = await request.observe({ agentName, agent, turnIndex: 1 });
      const ending = watchForEnd(observer.listener);
      const outcome = await this.engine.startConversation(
        appId,
        agentName,
        {},
        { items: [userMessage(request.parts)], options: request.options },
        {
          ...runOptions(async (tx, accepted) => {
            const created = newSession(appId, sessionId, accepted.turn.conversationId, request.variables ?? {}, 1);
            await insertSession(tx, {
              ...created,
              createdAt: accepted.turn.createdAt,
              updatedAt: accepted.turn.createdAt,
            });
          }),
          listener: ending.listener,
        },
      );
      return this.finish(appId, sessionId, outcome, ending.ended());
    }

    if (request.variables) {
      session =
        (await store.sessions.update(appId, session.id, {
          variables: { ...session.variables, ...request.variables },
          updatedAt: this.now(),
        })) ?? session;
    }
    if (request.parts.length === 0 && request.responseParams.length === 0) return { kind: 'idle' };
    const current = session;
    const state = await this.engine.getConversationState(appId, current.conversationId);
    if (state.status === 'running') {
      throw new BatonError(
        'session_busy',
        `Session '${sessionId}' is running a turn for another request; retry when it has finished.`,
        { data: { session_id: sessionId } },
      );
    }
    const agent = (await store.agents.getById(state.conversation.agentId))?.definition;
    const turnIndex = current.turnCount + 1;
    const observer = await request.observe({ agentName: state.conversation.agentName, agent, turnIndex });
    const ending = watchForEnd(observer.listener);
    const results = await matchResponses(store, appId, current, observer.responses, state.pendingCalls);
    const countTurn = async (tx: Pick<Repositories, 'sessions'>): Promise<void> => {
      await tx.sessions.update(appId, current.id, { turnCount: turnIndex, updatedAt: this.now() });
    };

    if (state.status === 'pending') {
      const pendingIds = new Set(state.pendingCalls.map((entry) => entry.id));
      const approvals = state.pendingCalls.filter((entry) => entry.kind === 'approval');
      const missing = state.pendingCalls.filter(
        (entry) => entry.kind !== 'approval' && !results.some((result) => result.callId === entry.id),
      );
      const otherInput = request.parts.length > 0 || results.some((result) => !pendingIds.has(result.callId));
      if (otherInput && missing.length > 0) throw responsesPending(sessionId, missing, approvals);
      if (otherInput && approvals.length > 0) throw approvalPending(sessionId, approvals);
      if (missing.length > 0 || approvals.length > 0) {
        // Partial answers are kept (two approvers may answer separately); the session stays locked.
        // The listener only matters if an approval was decided meanwhile and this answer resumes the turn.
        let resumed: TurnOutcome | null = null;
        for (const result of results) {
          const answered = await this.engine.submitCallResult(appId, result.callId, result, {
            ...runOptions(),
            listener: ending.listener,
          });
          resumed = answered.outcome ?? resumed;
        }
        await countTurn(store);
        if (resumed) return this.finish(appId, current.id, resumed, ending.ended());
        return { kind: 'partial', missing, approvals };
      }
      // The outputs written on resume come with no events; the observer gets them with the turn's rows.
      const entries = state.activeTurn ? await store.ledger.listByTurn(state.activeTurn.id) : [];
      const onResume: RunOptions['onAccepted'] = async (tx, accepted) => {
        await countTurn(tx);
        observer.accepted(accepted.inputItems, entries);
      };
      const outcome = await this.engine.submitResults(
        appId,
        current.conversationId,
        results,
        { ...runOptions(onResume), listener: ending.listener },
        request.parts.length > 0 ? [userMessage(request.parts)] : [],
      );
      return this.finish(appId, current.id, outcome, ending.ended());
    }
    const outcome = await this.engine.sendMessage(
      appId,
      current.conversationId,
      {
        items: request.parts.length > 0 ? [userMessage(request.parts)] : [],
        options: request.options,
        asyncResults: results,
      },
      { ...runOptions(countTurn), listener: ending.listener },
    );
    if (isQueuedOutcome(outcome))
      throw new BatonError('unexpected_queue', 'Session input was queued, which sessions never allow.');
    return this.finish(appId, current.id, outcome, ending.ended());
  }

  /** Sessions of an app with the agent each talks to, for listings. */
  async list(appId: string): Promise<{ session: SessionRecord; agentName: string }[]> {
    const found: { session: SessionRecord; agentName: string }[] = [];
    for (const session of await this.context.store.sessions.list(appId)) {
      const conversation = await this.context.store.conversations.get(appId, session.conversationId);
      if (conversation) found.push({ session, agentName: conversation.agentName });
    }
    return found;
  }

  /** A session with its conversation, the agent's definition and every item it holds. */
  async get(
    appId: string,
    sessionId: string,
  ): Promise<{
    session: SessionRecord;
    conversation: ConversationRecord;
    agent: AgentDefinition | undefined;
    items: ItemRecord[];
  }> {
    const session = await this.find(appId, sessionId);
    const conversation = await this.engine.getConversation(appId, session.conversationId);
    const agent = (await this.context.store.agents.getById(conversation.agentId))?.definition;
    const items: ItemRecord[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.engine.listItems(appId, session.conversationId, { limit: ITEM_PAGE, cursor });
      items.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    return { session, conversation, agent, items };
  }

  /**
   * Deletes the session and its conversation; a paused turn is closed and its calls cancelled
   * first. A running turn refuses the delete (409 `conversation_running`).
   */
  async delete(appId: string, sessionId: string, actor: string | null): Promise<void> {
    const session = await this.find(appId, sessionId);
    await this.engine.deleteConversation(appId, session.conversationId, actor, { whileRunning: 'refuse', audit: true });
  }

  private async find(appId: string, sessionId: string): Promise<SessionRecord> {
    const session = await this.context.store.sessions.get(appId, sessionId);
    if (!session) {
      throw new BatonError('conversation_not_found', `Session '${sessionId}' was not found.`, {
        data: { session_id: sessionId },
      });
    }
    return session;
  }

  /** A session whose first request only sets variables: the conversation exists, no turn ran. */
  private async startQuietly(
    appId: string,
    sessionId: string,
    agentName: string,
    variables: JsonObject,
  ): Promise<void> {
    const conversation = await this.engine.createConversation(appId, agentName, {});
    try {
      await this.context.store.sessions.insert({
        ...newSession(appId, sessionId, conversation.id, variables, 0),
        createdAt: conversation.createdAt,
        updatedAt: conversation.createdAt,
      });
    } catch (error) {
      await this.context.store.conversations.delete(appId, conversation.id);
      throw error instanceof DuplicateKeyError ? startedConcurrently(sessionId) : error;
    }
  }

  /** A session whose agent called `end_session` takes no more input. */
  private async finish(
    appId: string,
    sessionId: string,
    outcome: TurnOutcome,
    ended: boolean,
  ): Promise<SessionRunOutcome> {
    if (ended) await this.context.store.sessions.update(appId, sessionId, { ended: true, updatedAt: this.now() });
    return { kind: 'ran', outcome, ended };
  }

  private now(): string {
    return this.context.clock.now().toISOString();
  }
}

const ITEM_PAGE = 1_000;

function userMessage(parts: ContentPart[]): InputItem {
  return { type: 'message', role: 'user', content: parts };
}

function newSession(
  appId: string,
  id: string,
  conversationId: string,
  variables: JsonObject,
  turnCount: number,
): Omit<SessionRecord, 'createdAt' | 'updatedAt'> {
  return { appId, id, conversationId, ended: false, variables, turnCount };
}

async function insertSession(tx: Pick<Repositories, 'sessions'>, session: SessionRecord): Promise<void> {
  try {
    await tx.sessions.insert(session);
  } catch (error) {
    throw error instanceof DuplicateKeyError ? startedConcurrently(session.id) : error;
  }
}

function startedConcurrently(sessionId: string): BatonError {
  return new BatonError(
    'session_busy',
    `Session '${sessionId}' was started by another request at the same time; retry.`,
    { data: { session_id: sessionId, started_concurrently: true } },
  );
}

/** Passes events on, noting whether the agent called `end_session` (the session then closes). */
function watchForEnd(listener: EngineEventListener): { listener: EngineEventListener; ended(): boolean } {
  let ended = false;
  return {
    listener: (event: EngineEvent) => {
      if (event.type === 'item.added') {
        const payload = event.item.payload;
        if (payload.type === 'function_call' && payload.executor === 'system' && payload.name === END_SESSION_TOOL)
          ended = true;
      }
      listener(event);
    },
    ended: () => ended,
  };
}
