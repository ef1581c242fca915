import type { Transport } from '../http/transport.ts';
import { CesFace, type CesReply } from '../runner/ces-face.ts';
import { DEFAULT_HANDLER_TIMEOUT_MS } from '../runner/run-handlers.ts';
import { DEFAULT_MAX_ROUNDS, runLoop } from '../runner/run-loop.ts';
import type { RunOptions, RunResult } from '../runner/run-types.ts';
import type { ThreadReader } from '../runner/thread-steps.ts';
import { ToolRegistry } from '../runner/tool-registry.ts';
import type { CesConversation, RunSessionRequest, RunSessionResponse, SessionConfig } from '../wire/ces.ts';
import { callSettings, type CallOptions } from './call-options.ts';
import type { ToolCalls } from './tool-calls.ts';

export interface SessionRunOptions extends RunOptions<CesReply> {
  /** Session settings (`entryAgent`, `useToolFakes`, …); `session` is the one given to `run`. */
  config?: Omit<SessionConfig, 'session'>;
}

const SESSION_NAME = /^projects\/[^/]+\/locations\/[^/]+\/apps\/[^/]+\/sessions\/[^/]+$/;

function checkSession(session: string): void {
  if (!SESSION_NAME.test(session)) {
    throw new TypeError(
      `'${session}' is not a session name: use projects/{project}/locations/{location}/apps/{app}/sessions/{session}.`,
    );
  }
}

/** `…/sessions/{session}:runSession` (CES), and the tool loop over it. */
export class CesSessions {
  constructor(
    private readonly http: Transport,
    private readonly toolCalls: ToolCalls,
    private readonly threads: ThreadReader,
    private readonly defaults: { pollIntervalMs: number },
  ) {}

  /** `runSession` as is. */
  async runRaw(session: string, body: RunSessionRequest, options?: CallOptions): Promise<RunSessionResponse> {
    checkSession(session);
    return this.http.json({ method: 'POST', path: `/v1/${session}:runSession`, body, ...callSettings(options) });
  }

  /** The session's conversation record (`…/conversations/{session}`), with its turns. */
  async conversation(session: string, options?: CallOptions): Promise<CesConversation> {
    checkSession(session);
    return this.http.json({
      method: 'GET',
      path: `/v1/${session.replace(/\/sessions\/([^/]+)$/, '/conversations/$1')}`,
      ...callSettings(options),
    });
  }

  /**
   * Sends `text` to the session and runs the tool loop: each step's client-function calls go to
   * the handlers (keyed by the function's name), all at once, and their responses back in one
   * `toolResponses` input, until the agent answers in text.
   */
  async run(session: string, text: string, options: SessionRunOptions = {}): Promise<RunResult<CesReply>> {
    checkSession(session);
    const registry = new ToolRegistry(options.tools, options.fallback);
    const face = new CesFace(session, text, {
      http: this.http,
      toolCalls: this.toolCalls,
      threads: this.threads,
      config: options.config ?? {},
      pollIntervalMs: options.pollIntervalMs ?? this.defaults.pollIntervalMs,
      onApproval: options.onApproval,
    });
    return runLoop(face, {
      registry,
      handlerTimeoutMs: options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS,
      maxRounds: options.maxRounds ?? DEFAULT_MAX_ROUNDS,
      signal: options.signal,
      emit: options.onEvent ?? (() => {}),
    });
  }
}
