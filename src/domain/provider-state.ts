import type { JsonObject } from './json.ts';

/**
 * What a provider attached to a part of its answer and needs back unchanged on the next request
 * (Gemini's `thoughtSignature`, Anthropic's thinking `signature`, OpenAI's reasoning item id and
 * encrypted content): the AI SDK's `providerMetadata`, returned as the part's `providerOptions`.
 * It is bound to the model that produced it (`provider:model`, as the agent names it): another
 * model would reject the foreign signatures, so it never sees them.
 */
export interface ProviderState {
  model: string;
  metadata: JsonObject;
  /**
   * The provider's own id of a call (Baton gives every call its own id). It goes back to that
   * model in place of Baton's: OpenAI ties a reasoning item to the call that followed it by it.
   */
  callId?: string;
}

/**
 * Settings passed through to a provider, by the AI SDK's provider namespace (`openai`, `anthropic`,
 * `google`, or an OpenAI-compatible provider's name): thinking budgets, reasoning effort, service
 * tier. Validated per provider when an agent is written (models/provider-options.ts).
 */
export type ProviderOptions = Record<string, JsonObject>;
