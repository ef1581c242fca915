import type { Engine, SessionResponse, SessionRunObserver, SessionRunStart } from '../../../engine/index.ts';
import { SESSION_ID_PATTERN } from '../../../engine/index.ts';
import { BatonError } from '../../../domain/errors/baton-error.ts';
import { appResourceName, type Resources } from '../../../resources/index.ts';
import type { Principal } from '../../../domain/principal.ts';
import type { AppRecord, TurnOptions } from '../../../domain/records.ts';
import { readSessionInputs, toolResultOf, type SessionInputs } from './session-inputs.ts';
import { SessionOutputWriter } from './session-output-writer.ts';
import { inSessionWords } from './session-wording.ts';
import type { RunSessionRequest, SessionOutput } from './session-wire.ts';
import { describeToolRef, sameToolRef, toolRefOf, ToolCallNames } from './tool-call-names.ts';

export interface SessionPath {
  project: string;
  location: string;
  app: string;
  session: string;
}

/** Where a run's outputs go: collected for `runSession`, streamed for `streamRunSession`. */
export type OutputSink = (output: SessionOutput) => void;

/**
 * CES sessions over the engine's: `runSession` reads a request's inputs, resolves the app and
 * the entry agent, and hands the run to `engine.sessions`, which owns the session lock
 * (reference/ces.md §5.3); outputs are written as the engine's events arrive. Responses name
 * their call by id or by tool (a Tool resource, or a toolset's tool), as the CES wire does.
 */
export class SessionService {
  constructor(
    private readonly resources: Resources,
    private readonly engine: Engine,
  ) {}

  async runSession(
    principal: Principal,
    path: SessionPath,
    request: RunSessionRequest,
    sink: OutputSink,
    idempotencyKey: string | null = null,
  ): Promise<void> {
    const app = await this.resources.resolveApp(principal, path);
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
    let writer: SessionOutputWriter | null = null;
    const observe = async (start: SessionRunStart): Promise<SessionRunObserver> => {
      const names = await ToolCallNames.load(this.resources.toolCatalog, app, start.agent);
      const opened = new SessionOutputWriter(
        sink,
        names,
        start.turnIndex,
        request.config.enableTextStreaming === true,
        start.agentName,
      );
      writer = opened;
      return {
        responses: responsesOf(inputs, names),
        listener: opened.listener,
        accepted: (items, entries) => opened.accepted(items, entries),
      };
    };
    try {
      const ran = await this.engine.sessions.run({
        appId: app.id,
        sessionId: path.session,
        entryAgent: () => this.entryAgent(app, request.config.entryAgent),
        parts: inputs.parts,
        responseParams: inputs.responses.map((response) => response.param),
        variables: inputs.variables,
        options: turnOptions(request),
        submission: { actor: principal.keyId, idempotencyKey },
        observe,
      });
      const opened = writer as SessionOutputWriter | null;
      if (ran.kind === 'idle' || !opened) return;
      if (ran.kind === 'ran') return opened.finish(ran.outcome);
      opened.pendingCalls(ran.missing);
      opened.finishPaused(ran.approvals);
    } catch (error) {
      throw inSessionWords(error, sessionName);
    }
  }

  private async agentExists(appId: string, name: string): Promise<boolean> {
    try {
      await this.resources.agentDefinitions.get(appId, name);
      return true;
    } catch (error) {
      if (error instanceof BatonError && error.code === 'agent_not_found') return false;
      throw error;
    }
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
    if (agentId === '' || agentId.includes('/') || !(await this.agentExists(app.id, agentId))) {
      throw new BatonError(
        'unknown_agent',
        `${field} '${name}' is not an agent of this app; list agents with GET /v1/${appResourceName(app)}/agents.`,
        { param: field },
      );
    }
    return agentId;
  }
}

/**
 * The request's tool responses in the engine's terms: a response without an id names its call
 * by tool, and the tool and displayName it gives must be the call's (the client echoes what it
 * received).
 */
function responsesOf(inputs: SessionInputs, names: ToolCallNames): SessionResponse[] {
  return inputs.responses.map(({ response, param }) => ({
    callId: response.id,
    param,
    ...toolResultOf(response.response),
    namesFunction: (functionName: string) => sameToolRef(names.identify(functionName), response),
    verify: (entry) => {
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
    },
  }));
}

/** Per-request turn settings: `config.useToolFakes` runs the fakes of tools that have fake mode on. */
function turnOptions(request: RunSessionRequest): TurnOptions {
  return { tools: [], ...(request.config.useToolFakes === true ? { useToolFakes: true } : {}) };
}
