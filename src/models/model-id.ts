/**
 * Model ids are `provider:model`. Only the FIRST colon separates them, because model names
 * themselves may contain colons and slashes (`ollama:llama3.1:8b`, `vllm:meta-llama/Llama-3.1-8B`).
 */
export interface ParsedModelId {
  readonly provider: string;
  readonly model: string;
}

/** Undefined when the id has no colon or an empty provider or model part. */
export function parseModelId(modelId: string): ParsedModelId | undefined {
  const colon = modelId.indexOf(':');
  if (colon <= 0 || colon === modelId.length - 1) return undefined;
  const provider = modelId.slice(0, colon);
  const model = modelId.slice(colon + 1);
  if (provider.trim() !== provider || model.trim() === '') return undefined;
  return { provider, model };
}
