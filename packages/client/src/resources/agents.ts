import { BatonError } from '../errors.ts';
import type { Transport } from '../http/transport.ts';
import type { Agent, AgentRetention } from '../wire/agents.ts';
import type { Page, TimeoutPolicy } from '../wire/common.ts';
import type { ToolDeclaration } from '../wire/threads.ts';
import { callSettings, type CallOptions } from './call-options.ts';

/** A tool of an agent as it is written (the same declaration a message may carry). */
export type AgentToolBody = ToolDeclaration;

/** An agent as `POST /v1/agents` takes it. Mirrors src/faces/agents/agent-wire.ts (`agentWireSchema`). */
export interface AgentBody {
  name: string;
  /** `provider:model` (`openai:gpt-4o-mini`, `scripted:auto`, …). */
  model: string;
  instructions?: string;
  description?: string;
  tools?: AgentToolBody[];
  max_steps?: number;
  parallel_tool_calls?: boolean;
  /** Default deadline of a pending call in seconds (0.001 to 2592000, 30 days); null: none. */
  tool_timeout_seconds?: number | null;
  timeout_policy?: TimeoutPolicy;
  input_policy?: 'reject' | 'queue';
  /**
   * Results for some of a paused turn's calls in one message: `hold` (default) keeps them and
   * answers 202 naming the calls still pending; `reject` refuses them (400 missing_tool_results).
   */
  partial_results?: 'hold' | 'reject';
  /**
   * The `status` of a response of this agent on `/v1/responses` while it waits for
   * function_call outputs: `completed` (default, as OpenAI) or `requires_action` (the Nodexa dialect).
   */
  paused_response_status?: 'completed' | 'requires_action';
  history_limit?: number;
  temperature?: number;
  max_output_tokens?: number;
  /**
   * Passed to the provider on every model step, by provider namespace, with the AI SDK's option
   * names: `{ anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 } } }`. See
   * docs/provider-options.md for what each provider accepts.
   */
  provider_options?: Record<string, Record<string, unknown>>;
  /** How long Baton keeps this agent's conversations and tool data (whole days, 1 to 3650); overrides the app's. */
  retention?: AgentRetention;
}

/** `PUT /v1/agents/{name}`: the whole new definition (the name is the path's); `expected_version` refuses a stale edit. */
export type AgentUpdateBody = Omit<AgentBody, 'name'> & { name?: string; expected_version?: number };

/** `/v1/agents`: the agents of the key's app. Every update is a new version; paused turns keep the version they started with. */
export class Agents {
  constructor(private readonly http: Transport) {}

  list(query: { limit?: number; after?: string } = {}, options?: CallOptions): Promise<Page<Agent>> {
    return this.http.json({ method: 'GET', path: '/v1/agents', query, ...callSettings(options) });
  }

  get(name: string, options?: CallOptions): Promise<Agent> {
    return this.http.json({ method: 'GET', path: this.path(name), ...callSettings(options) });
  }

  /** Creates an agent (version 1). A 409 `agent_exists` if the name is taken. */
  create(body: AgentBody, options?: CallOptions): Promise<Agent> {
    return this.http.json({ method: 'POST', path: '/v1/agents', body, ...callSettings(options) });
  }

  /**
   * Replaces an agent's definition (omitted settings take their defaults) as a new version. A 404
   * `agent_not_found` if there is none; with `expected_version`, a 409 `agent_version_mismatch`
   * if someone else changed it since.
   */
  update(name: string, body: AgentUpdateBody, options?: CallOptions): Promise<Agent> {
    return this.http.json({ method: 'PUT', path: this.path(name), body, ...callSettings(options) });
  }

  /** Makes the agent say `body`: updates it when it exists, else creates it (for setup scripts and examples). */
  async upsert(body: AgentBody, options?: CallOptions): Promise<Agent> {
    const { name, ...definition } = body;
    try {
      return await this.update(name, definition, options);
    } catch (error) {
      if (!(error instanceof BatonError && error.code === 'agent_not_found')) throw error;
    }
    try {
      return await this.create(body, options);
    } catch (error) {
      // Created by someone else in between: ours is the newer definition.
      if (!(error instanceof BatonError && error.code === 'agent_exists')) throw error;
      return this.update(name, definition, options);
    }
  }

  delete(name: string, options?: CallOptions): Promise<{ object: 'agent.deleted'; name: string; deleted: true }> {
    return this.http.json({ method: 'DELETE', path: this.path(name), ...callSettings(options) });
  }

  private path(name: string): string {
    return `/v1/agents/${encodeURIComponent(name)}`;
  }
}
