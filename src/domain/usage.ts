import type { TurnUsage } from './records.ts';

/** The sum of two usages; cached and reasoning counts stay absent until a provider reports one. */
export function addUsage(total: TurnUsage, step: TurnUsage): TurnUsage {
  const sum: TurnUsage = {
    inputTokens: total.inputTokens + step.inputTokens,
    outputTokens: total.outputTokens + step.outputTokens,
  };
  if (total.cachedInputTokens !== undefined || step.cachedInputTokens !== undefined)
    sum.cachedInputTokens = (total.cachedInputTokens ?? 0) + (step.cachedInputTokens ?? 0);
  if (total.reasoningTokens !== undefined || step.reasoningTokens !== undefined)
    sum.reasoningTokens = (total.reasoningTokens ?? 0) + (step.reasoningTokens ?? 0);
  return sum;
}
