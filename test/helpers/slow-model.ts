import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { autoProgram } from '../../src/models/scripted/auto-program.ts';
import { ScriptedLanguageModel } from '../../src/models/scripted/scripted-model.ts';

/**
 * The scripted `auto` model behind a gate, like a slow provider: each call waits until `release`
 * settles, or until its caller aborts it. `calls` counts the calls made, `aborted` tells whether
 * one was aborted.
 */
export function slowModel(release: Promise<void>): LanguageModelV3 & { aborted: boolean; calls: number } {
  const inner = new ScriptedLanguageModel('auto', autoProgram);
  const model = {
    specificationVersion: 'v3' as const,
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: {},
    aborted: false,
    calls: 0,
    doGenerate: (options: LanguageModelV3CallOptions) => inner.doGenerate(options),
    doStream: async (options: LanguageModelV3CallOptions) => {
      model.calls += 1;
      await new Promise<void>((resolve, reject) => {
        void release.then(resolve);
        options.abortSignal?.addEventListener('abort', () => {
          model.aborted = true;
          reject(options.abortSignal?.reason);
        });
      });
      return inner.doStream(options);
    },
  };
  return model;
}
