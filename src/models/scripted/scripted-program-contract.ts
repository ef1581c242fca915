import type { ScriptedTurn } from './scripted-turn.ts';

/**
 * The contract between the scripted model and a program (a YAML rule set or the built-in auto
 * program). A program only decides *what* one step does; the model turns the decision into
 * `doGenerate` content or a realistic `doStream` stream, so programs never deal with the wire format.
 */
export interface ScriptedProgram {
  readonly name: string;
  decide(turn: ScriptedTurn, state: ScriptedProgramState): ScriptedDecision;
}

/** Per-model-instance memory offered to programs (e.g. to fail only the first N matching calls). */
export interface ScriptedProgramState {
  /** Counts one more hit of `key` and returns the new count (1 on the first hit). */
  hit(key: string): number;
}

export interface ScriptedToolCallPlan {
  readonly toolName: string;
  /** The arguments object; the model JSON-encodes it. */
  readonly input: Record<string, unknown>;
}

export type ScriptedDecision =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'tool-calls'; readonly calls: readonly ScriptedToolCallPlan[] }
  | {
      readonly kind: 'fail';
      readonly status: number;
      readonly message: string;
      /** Sent as a `retry-after-ms` response header so the AI SDK's retry waits this long. */
      readonly retryAfterMs: number | undefined;
    };
