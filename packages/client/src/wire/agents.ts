import type { TimeoutPolicy } from './common.ts';
import type { ToolDeclaration } from './threads.ts';

/** An agent as `/v1/agents` shows it. Mirrors src/faces/agents/agent-wire.ts (`agentToWire`). */
export interface Agent {
  object: string;
  id: string;
  name: string;
  version: number;
  model: string;
  instructions: string;
  description: string | null;
  tools: ToolDeclaration[];
  max_steps: number;
  parallel_tool_calls: boolean;
  /** Default deadline of a pending call in seconds (0.001 to 2592000, 30 days); null: none. */
  tool_timeout_seconds: number | null;
  timeout_policy: TimeoutPolicy;
  input_policy: 'reject' | 'queue';
  partial_results: 'hold' | 'reject';
  /** What `/v1/responses` says while a response of this agent waits for function_call outputs. */
  paused_response_status: 'completed' | 'requires_action';
  history_limit: number;
  temperature: number | null;
  max_output_tokens: number | null;
  /** Options passed to the provider, by provider namespace (`{}` when none). */
  provider_options: Record<string, Record<string, unknown>>;
  /** The agent's own retention policy; absent when it has none (the app's applies). */
  retention?: AgentRetention;
  created_at: string;
  updated_at: string;
}

/**
 * How long Baton keeps an agent's data, in whole days from 1 to 3650; each field set overrides
 * the app's (CES App `retention`). Absent fields follow the app's policy.
 */
export interface AgentRetention {
  /** Delete a conversation this many days after its last activity, once no turn runs and no call is pending. */
  conversations_after_days?: number;
  /** Remove tool calls' arguments and results this many days after they resolved; state and timestamps stay. */
  tool_data_after_days?: number;
}
