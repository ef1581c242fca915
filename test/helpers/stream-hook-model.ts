import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';

/**
 * `inner` with `beforeStream` run before each streamed call, which waits for it: to hold a call
 * (a gate) or to look at what the model is sent.
 */
export function withStreamHook(
  inner: LanguageModelV3,
  beforeStream: (options: LanguageModelV3CallOptions) => void | Promise<void>,
): LanguageModelV3 {
  return {
    ...inner,
    specificationVersion: 'v3',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: {},
    doGenerate: (options) => inner.doGenerate(options),
    doStream: async (options) => {
      await beforeStream(options);
      return inner.doStream(options);
    },
  };
}
