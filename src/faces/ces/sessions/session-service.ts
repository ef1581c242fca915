import type { Engine, RunOptions } from '../../../engine/index.ts';
import type { TurnOutcome } from '../../../engine/index.ts';
import { isQueuedOutcome } from '../../../engine/index.ts';
import { BatonError } from '../../../domain/errors/baton-error.ts';
import type { InputItem } from '../../../engine/index.ts';
import type { ToolResultInput } from '../../../engine/index.ts';
import type { ToolProvider } from '../../../engine/index.ts';
import type { Principal } from '../../../domain/principal.ts';
import type {
  AgentDefinition,
  AppRecord,
  JsonObject,
  LedgerEntryRecord,
  SessionRecord,
  TurnOptions,
} from '../../../domain/records.ts';
import { DuplicateKeyError, type Repositories, type Store } from '../../../store/store.ts';
import { appResourceName, resolveApp } from '../app-access.ts';
import { approvalPendingError, notClientsToAnswer, responsesPendingError } from './session-lock-errors.ts';
import { readSessionInputs, toolResultOf, type SessionInputs } from './session-inputs.ts';
import { SessionOutputWriter } from './session-output-writer.ts';
import type { RunSessionRequest, SessionOutput } from './session-wire.ts';
import { describeToolRef, sameToolRef, toolRefOf, ToolCallNames } from './tool-call-names.ts';

export const SESSION_ID_PATTERN = /^[A-Za-z0-9_.~-]{1,128}$/;

export interface SessionPath {
  project: string;
  location: string;
  app: string;
  session: string;
}

/** Where a run's outputs go: collected for `runSession`, streamed for `streamRunSession`. */
export type OutputSink = (output: SessionOutput) => void;

/**
 * CES sessions on the engine: `runSession` takes a session's inputs, applies the lock rules of
 * `reference/ces.md` §5.3 and runs the agent. A session is a conversation with a client-chosen
 * id; a synchronous client function pauses its turn (the session is locked until every pending
 * call has its response), an asynchronous one does not (its response starts a later turn).
 * A server tool that needs approval pauses the turn too, but only a person deciding it through
 * the ledger unlocks the session; the client is told how, never asked to answer it.
 */
export class SessionService {
  constructor(
    private readonly store: Store,
    private readonly engine: Engine,
    private readonly tools?: ToolProvider,
  ) {}

  async runSession(
    principal: Principal,
    path: SessionPath,
    request: RunSessionRequest,
    sink: OutputSink,
    idempotencyKey: string | null = null,
  ): Promise<void> {
    const app = await resolveApp(this.store, principal, path.project, path.location, path.app);
    const sessionName = `${appResourceName(app)}/sessions/${path.session}`;
    if (!SESSION_ID_PATTERN.test(path.session)) {
      throw new BatonError(
        'invalid_session_id',
        `Invalid session id '${path.session}': use 1-128 letters, digits, '-', '_', '.' or '~'.`,
        { param: 'config.session' },
      );
    }
    if (request.config.session !== sessionName) {
      throw new BatonError(
        'session_name_mismatch',
        `config.session must be the session of the URL, '${sessionName}' (got '${request.config.session}').`,
        { param: 'config.session' },
      );
    }
    if (request.config.historicalContexts && request.config.historicalContexts.length > 0) {
      throw new BatonError(
        'unsupported_field',
        'config.historicalContexts is not supported by Baton: a session keeps its own history; start a new session id for a fresh one.',
        {
          param: 'config.historicalContexts',
        },
      );
    }
    const inputs = readSessionInputs(request.inputs);
    const runOptions = (onAccepted?: RunOptions['onAccepted']): RunOptions => ({
      submission: { actor: principal.keyId, idempotencyKey },
      allowQueue: false,
      ...(onAccepted ? { onAccepted } : {}),
    });

    let session = await this.store.sessions.get(app.id, path.session);
    if (session?.ended) {
      throw new BatonError(
        'session_ended',
        `Session '${sessionName}' has ended; start a new session id to talk again.`,
      );
    }
    if (!session) {
      const agentName = await this.entryAgent(app, request.config.entryAgent);
      if (inputs.responses.length > 0) {
        throw new BatonError(
          'unknown_tool_call',
          `Session '${sessionName}' is new and has no tool calls to respond to; remove toolResponses.`,
          {
            param: inputs.responses[0]?.param ?? 'inputs',
          },
        );
      }
      if (inputs.parts.length === 0) {
        await this.createQuietSession(app, path.session, agentName, inputs.variables ?? {});
        return;
      }
      const writer = this.writerFor(
        agentName,
        1,
        request,
        sink,
        await this.namesFor(app, (await this.store.agents.get(app.id, agentName))?.definition),
      );
      const started = await this.engine.startConversation(
        app.id,
        agentName,
        {},
        { items: [userMessage(inputs)], options: turnOptions(request) },
        {
          ...runOptions(async (tx, accepted) => {
            await insertSession(
              tx,
              newSession(
                app.id,
                path.session,
                accepted.turn.conversationId,
                inputs.variables ?? {},
                accepted.turn.createdAt,
                1,
              ),
            );
          }),
          listener: writer.listener,
        },
      );
      return this.finish(app, path.session, writer, started);
    }

    if (inputs.variables) {
      session =
        (await this.store.sessions.update(app.id, session.id, {
          variables: { ...session.variables, ...inputs.variables },
          updatedAt: new Date().toISOString(),
        })) ?? session;
    }
    if (inputs.parts.length === 0 && inputs.responses.length === 0) return;
    const current = session;
    const state = await this.engine.getConversationState(app.id, current.conversationId);
    if (state.status === 'running') {
      throw new BatonError(
        'session_busy',
        `Session '${sessionName}' is running a turn for another request; retry when it has finished.`,
      );
    }
    const agent = await this.store.agents.getById(state.conversation.agentId);
    const names = await this.namesFor(app, agent?.definition);
    const results = await this.matchResponses(app, current, inputs, state.pendingCalls, names);
    const turnIndex = current.turnCount + 1;
    const countTurn = async (tx: Repositories): Promise<void> => {
      await tx.sessions.update(app.id, current.id, { turnCount: turnIndex, updatedAt: new Date().toISOString() });
    };
    const writer = this.writerFor(state.conversation.agentName, turnIndex, request, sink, names);

    if (state.status === 'pending') {
      const pendingIds = new Set(state.pendingCalls.map((entry) => entry.id));
      const approvals = state.pendingCalls.filter((entry) => entry.kind === 'approval');
      const missing = state.pendingCalls.filter(
        (entry) => entry.kind !== 'approval' && !results.some((result) => result.callId === entry.id),
      );
      const otherInput = inputs.parts.length > 0 || results.some((result) => !pendingIds.has(result.callId));
      if (otherInput && missing.length > 0) throw responsesPendingError(sessionName, missing, approvals);
      if (otherInput && approvals.length > 0) throw approvalPendingError(sessionName, approvals);
      if (missing.length > 0 || approvals.length > 0) {
        // Partial answers are kept (two approvers may answer separately); the session stays locked.
        // The listener only matters if an approval was decided meanwhile and this answer resumes the turn.
        let resumed: TurnOutcome | null = null;
        for (const result of results)
          resumed =
            (
              await this.engine.submitCallResult(app.id, result.callId, result, {
                ...runOptions(),
                listener: writer.listener,
              })
            ).outcome ?? resumed;
        await this.store.sessions.update(app.id, current.id, {
          turnCount: turnIndex,
          updatedAt: new Date().toISOString(),
        });
        if (resumed) return this.finish(app, current.id, writer, resumed);
        writer.pendingCalls(missing);
        return writer.finishPaused(approvals);
      }
      // The outputs written on resume come with no events; the writer reads server ones from here.
      const entries = state.activeTurn ? await this.store.ledger.listByTurn(state.activeTurn.id) : [];
      const onResume: RunOptions['onAccepted'] = async (tx, accepted) => {
        await countTurn(tx);
        writer.accepted(accepted.inputItems, entries);
      };
      const outcome = await this.engine.submitResults(
        app.id,
        current.conversationId,
        results,
        { ...runOptions(onResume), listener: writer.listener },
        inputs.parts.length > 0 ? [userMessage(inputs)] : [],
      );
      return this.finish(app, current.id, writer, outcome);
    }
    const outcome = await this.engine.sendMessage(
      app.id,
      current.conversationId,
      {
        items: inputs.parts.length > 0 ? [userMessage(inputs)] : [],
        options: turnOptions(request),
        asyncResults: results,
      },
      { ...runOptions(countTurn), listener: writer.listener },
    );
    if (isQueuedOutcome(outcome))
      throw new BatonError('unexpected_queue', 'Session input was queued, which sessions never allow.');
    return this.finish(app, current.id, writer, outcome);
  }

  /** Sends the turn's last output; a session whose agent called `end_session` takes no more input. */
  private async finish(
    app: AppRecord,
    sessionId: string,
    writer: SessionOutputWriter,
    outcome: TurnOutcome,
  ): Promise<void> {
    if (writer.ended)
      await this.store.sessions.update(app.id, sessionId, { ended: true, updatedAt: new Date().toISOString() });
    writer.finish(outcome);
  }

  private writerFor(
    agentName: string,
    turnIndex: number,
    request: RunSessionRequest,
    sink: OutputSink,
    names: ToolCallNames,
  ): SessionOutputWriter {
    return new SessionOutputWriter(sink, names, turnIndex, request.config.enableTextStreaming === true, agentName);
  }

  private namesFor(app: AppRecord, agent: AgentDefinition | undefined): Promise<ToolCallNames> {
    return ToolCallNames.load(this.store, app, agent, this.tools);
  }

  /** The agent a new session starts with: `config.entryAgent`, else the app's `rootAgent`. */
  private async entryAgent(app: AppRecord, entryAgent: string | undefined): Promise<string> {
    const prefix = `${appResourceName(app)}/agents/`;
    const field = entryAgent !== undefined ? 'config.entryAgent' : 'rootAgent';
    const name = entryAgent ?? (typeof app.settings.rootAgent === 'string' ? app.settings.rootAgent : undefined);
    if (name === undefined || name === '') {
      throw new BatonError(
        'no_root_agent',
        `App '${appResourceName(app)}' has no rootAgent: set it with PATCH /v1/${appResourceName(app)}?updateMask=rootAgent, or pass config.entryAgent.`,
      );
    }
    const agentId = name.startsWith(prefix) ? name.slice(prefix.length) : '';
    if (agentId === '' || agentId.includes('/') || !(await this.store.agents.get(app.id, agentId))) {
      throw new BatonError(
        'unknown_agent',
        `${field} '${name}' is not an agent of this app; list agents with GET /v1/${appResourceName(app)}/agents.`,
        { param: field },
      );
    }
    return agentId;
  }

  /** A session whose first request only sets variables: the conversation exists, no turn ran. */
  private async createQuietSession(
    app: AppRecord,
    sessionId: string,
    agentName: string,
    variables: JsonObject,
  ): Promise<void> {
    const conversation = await this.engine.createConversation(app.id, agentName, {});
    try {
      await this.store.sessions.insert(
        newSession(app.id, sessionId, conversation.id, variables, conversation.createdAt, 0),
      );
    } catch (error) {
      await this.store.conversations.delete(app.id, conversation.id);
      throw error instanceof DuplicateKeyError ? busy(sessionId) : error;
    }
  }

  /**
   * Matches each tool response to a call waiting for it: by id, or by tool when the id is left
   * out and only one pending call uses that tool. The tool and display name, when given, must be
   * the call's (the client echoes what it received). Calls Baton runs (server tools, approvals)
   * are refused: their results come from Baton or from a person's decision, never from the client.
   */
  private async matchResponses(
    app: AppRecord,
    session: SessionRecord,
    inputs: SessionInputs,
    pending: readonly LedgerEntryRecord[],
    names: ToolCallNames,
  ): Promise<ToolResultInput[]> {
    const results: ToolResultInput[] = [];
    const owed = pending.filter((call) => call.kind !== 'approval');
    for (const { response, param } of inputs.responses) {
      let entry: LedgerEntryRecord | undefined;
      if (response.id !== undefined) {
        entry = await this.store.ledger.get(app.id, response.id);
        if (!entry || entry.conversationId !== session.conversationId) {
          const waiting = owed.map((call) => call.id);
          throw new BatonError(
            'unknown_tool_call',
            `${param}.id '${response.id}' is not a tool call of this session. ${waiting.length > 0 ? `Pending calls: ${waiting.join(', ')}.` : 'No call is pending.'}`,
            {
              param: `${param}.id`,
              details: { pending_tool_call_ids: waiting },
            },
          );
        }
        if (entry.kind === 'server' || entry.kind === 'approval') throw notClientsToAnswer(entry, `${param}.id`);
      } else {
        const candidates = owed.filter((call) => sameToolRef(names.identify(call.toolName), response));
        const approval = pending.find(
          (call) => call.kind === 'approval' && sameToolRef(names.identify(call.toolName), response),
        );
        if (candidates.length === 0 && approval) throw notClientsToAnswer(approval, `${param}.tool`);
        if (candidates.length !== 1) {
          throw new BatonError(
            'tool_call_id_required',
            `${param}.id is required: ${candidates.length === 0 ? 'no pending call matches its tool' : 'several pending calls use this tool'}; echo the id of the toolCall.`,
            {
              param: `${param}.id`,
            },
          );
        }
        entry = candidates[0];
      }
      if (!entry) continue;
      const identity = names.identify(entry.toolName);
      if ((response.tool !== undefined || response.toolsetTool !== undefined) && !sameToolRef(identity, response)) {
        const field = `${param}.${response.toolsetTool !== undefined ? 'toolsetTool' : 'tool'}`;
        throw new BatonError(
          'tool_mismatch',
          `${field} must name '${describeToolRef(toolRefOf(identity))}', the tool of call '${entry.id}' (got '${describeToolRef(response)}').`,
          { param: field },
        );
      }
      if (response.displayName !== undefined && response.displayName !== identity.displayName) {
        throw new BatonError(
          'tool_mismatch',
          `${param}.displayName must be '${identity.displayName}', the display name of call '${entry.id}' (got '${response.displayName}').`,
          {
            param: `${param}.displayName`,
          },
        );
      }
      if (entry.state !== 'pending') {
        throw new BatonError(
          'tool_call_not_pending',
          `Tool call '${entry.id}' is no longer pending (it is ${entry.state}); its response cannot be sent again.`,
          { param: `${param}.id` },
        );
      }
      if (results.some((result) => result.callId === entry.id)) {
        throw new BatonError(
          'duplicate_tool_response',
          `${param} answers call '${entry.id}' a second time; send one response per call.`,
          { param: `${param}.id` },
        );
      }
      results.push({ callId: entry.id, ...toolResultOf(response.response), param });
    }
    return results;
  }
}

function userMessage(inputs: SessionInputs): InputItem {
  return { type: 'message', role: 'user', content: inputs.parts };
}

function newSession(
  appId: string,
  id: string,
  conversationId: string,
  variables: JsonObject,
  now: string,
  turnCount: number,
): SessionRecord {
  return { appId, id, conversationId, ended: false, variables, turnCount, createdAt: now, updatedAt: now };
}

async function insertSession(tx: Repositories, session: SessionRecord): Promise<void> {
  try {
    await tx.sessions.insert(session);
  } catch (error) {
    throw error instanceof DuplicateKeyError ? busy(session.id) : error;
  }
}

function busy(sessionId: string): BatonError {
  return new BatonError(
    'session_busy',
    `Session '${sessionId}' was started by another request at the same time; retry.`,
  );
}

/** Per-request turn settings: `config.useToolFakes` runs the fakes of tools that have fake mode on. */
function turnOptions(request: RunSessionRequest): TurnOptions {
  return { tools: [], ...(request.config.useToolFakes === true ? { useToolFakes: true } : {}) };
}
