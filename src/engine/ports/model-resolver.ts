import type { LanguageModelV3 } from '@ai-sdk/provider';

/** Turns an agent's `provider:model-id` into a model the engine can call (the model registry). */
export interface ModelResolver {
  resolve(modelId: string): LanguageModelV3;
}
