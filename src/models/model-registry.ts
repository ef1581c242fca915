import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { parseModelId } from './model-id.ts';
import { autoProgram } from './scripted/auto-program.ts';
import type { ScriptedProgram } from './scripted/scripted-program-contract.ts';
import { ScriptedLanguageModel } from './scripted/scripted-model.ts';
import { UnknownModelError } from './unknown-model-error.ts';

/**
 * Turns `provider:model` ids into AI SDK `LanguageModelV3` instances.
 *
 * Supported ids:
 * - `openai:…`, `anthropic:…`, `google:…` — the official providers; credentials come from
 *   `providers.<name>` or, as the SDKs do by default, from OPENAI_API_KEY / ANTHROPIC_API_KEY /
 *   GOOGLE_GENERATIVE_AI_API_KEY when the request is made (so resolving never needs a key).
 * - `openai-compatible:MODEL` — `providers['openai-compatible'].baseURL` (required) and apiKey.
 * - `ollama:MODEL` — OpenAI-compatible endpoint, default http://127.0.0.1:11434/v1.
 * - `NAME:MODEL` for each `providers.custom.NAME` (OpenAI-compatible).
 * - `scripted:NAME` (a program from `scriptedPrograms`) and `scripted:auto` (built in).
 */

export interface ProviderCredentials {
  apiKey?: string;
  baseURL?: string;
}

export interface ProvidersConfig {
  openai?: ProviderCredentials;
  anthropic?: ProviderCredentials;
  google?: ProviderCredentials;
  'openai-compatible'?: { baseURL?: string; apiKey?: string };
  ollama?: { baseURL?: string };
  /** Named OpenAI-compatible endpoints (vLLM, LM Studio, a gateway…), used as `NAME:MODEL`. */
  custom?: Record<string, { baseURL: string; apiKey?: string }>;
}

export interface ModelRegistryOptions {
  providers?: ProvidersConfig;
  scriptedPrograms?: Record<string, ScriptedProgram>;
  /** Passed to every HTTP provider; tests point it at fakes, deployments at proxies. */
  fetch?: typeof globalThis.fetch;
}

export interface ModelRegistry {
  /** Throws `UnknownModelError` for ids that cannot be served. */
  resolve(modelId: string): LanguageModelV3;
  /** Same checks as `resolve` without creating any client. */
  validate(modelId: string): void;
}

export const DEFAULT_OLLAMA_BASE_URL = 'http://127.0.0.1:11434/v1';

/** Provider names with a meaning of their own: a custom provider (`providers.custom`) takes none of them. */
export const RESERVED_PROVIDERS = ['openai', 'anthropic', 'google', 'openai-compatible', 'ollama', 'scripted'] as const;
/** What a custom provider's name may look like: it is the part of a model id before the colon. */
export const CUSTOM_PROVIDER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
type BuiltInProvider = (typeof RESERVED_PROVIDERS)[number];

type Target =
  | { readonly kind: Exclude<BuiltInProvider, 'scripted'>; readonly model: string }
  | { readonly kind: 'custom'; readonly provider: string; readonly model: string }
  | { readonly kind: 'scripted'; readonly model: string; readonly program: ScriptedProgram };

/**
 * Checks a model id against the configuration without constructing network clients, for use
 * when agents are created. Without `options`, only the built-in providers and `scripted:auto`
 * are known.
 */
export function validateModelId(modelId: string, options: ModelRegistryOptions = {}): void {
  classify(modelId, options);
}

export function createModelRegistry(options: ModelRegistryOptions): ModelRegistry {
  checkConfiguration(options);
  const providers = options.providers ?? {};
  // One provider instance per provider name: they hold settings and fetch, and are cheap to keep.
  const factories = new Map<string, (model: string) => LanguageModelV3>();
  // Scripted models are cached per id because `fail` rules count hits per model instance; a
  // fresh instance per resolve would reset "fail the first 2 calls" on every turn.
  const scriptedModels = new Map<string, ScriptedLanguageModel>();

  const factory = (name: string, create: () => (model: string) => LanguageModelV3) => {
    let existing = factories.get(name);
    if (existing === undefined) {
      existing = create();
      factories.set(name, existing);
    }
    return existing;
  };

  return {
    validate(modelId) {
      classify(modelId, options);
    },
    resolve(modelId) {
      const target = classify(modelId, options);
      switch (target.kind) {
        case 'openai':
          return factory('openai', () => {
            const provider = createOpenAI({ ...providers.openai, fetch: options.fetch });
            return (model) => provider(model);
          })(target.model);
        case 'anthropic':
          return factory('anthropic', () => {
            const provider = createAnthropic({ ...providers.anthropic, fetch: options.fetch });
            return (model) => provider(model);
          })(target.model);
        case 'google':
          return factory('google', () => {
            const provider = createGoogleGenerativeAI({ ...providers.google, fetch: options.fetch });
            return (model) => provider(model);
          })(target.model);
        case 'openai-compatible': {
          const config = providers['openai-compatible'];
          return factory('openai-compatible', () =>
            compatible('openai-compatible', config?.baseURL ?? '', config?.apiKey, options.fetch),
          )(target.model);
        }
        case 'ollama':
          return factory('ollama', () =>
            compatible('ollama', providers.ollama?.baseURL ?? DEFAULT_OLLAMA_BASE_URL, undefined, options.fetch),
          )(target.model);
        case 'custom': {
          const config = providers.custom?.[target.provider];
          return factory(target.provider, () =>
            compatible(target.provider, config?.baseURL ?? '', config?.apiKey, options.fetch),
          )(target.model);
        }
        case 'scripted': {
          let model = scriptedModels.get(target.model);
          if (model === undefined) {
            model = new ScriptedLanguageModel(target.model, target.program);
            scriptedModels.set(target.model, model);
          }
          return model;
        }
      }
    },
  };
}

function compatible(
  name: string,
  baseURL: string,
  apiKey: string | undefined,
  fetch: typeof globalThis.fetch | undefined,
): (model: string) => LanguageModelV3 {
  const provider = createOpenAICompatible({
    name,
    baseURL,
    apiKey,
    fetch,
    // Ask for usage in streams (`stream_options.include_usage`); servers that do not know the
    // option ignore it, and without it streamed turns would report no token counts.
    includeUsage: true,
  });
  return (model) => provider.chatModel(model);
}

/** Configuration mistakes that would make some ids ambiguous or unreachable; fail at startup. */
function checkConfiguration(options: ModelRegistryOptions): void {
  for (const name of Object.keys(options.providers?.custom ?? {})) {
    if ((RESERVED_PROVIDERS as readonly string[]).includes(name)) {
      throw new Error(`providers.custom.${name}: "${name}" is a built-in provider name; choose another name`);
    }
    if (!CUSTOM_PROVIDER_NAME_PATTERN.test(name)) {
      throw new Error(`providers.custom["${name}"]: provider names may contain only letters, digits, ".", "_" and "-"`);
    }
  }
  if (options.scriptedPrograms !== undefined && Object.hasOwn(options.scriptedPrograms, 'auto')) {
    throw new Error('scriptedPrograms.auto: "auto" is the built-in scripted program; choose another name');
  }
}

function classify(modelId: string, options: ModelRegistryOptions): Target {
  const providers = options.providers ?? {};
  const custom = providers.custom ?? {};
  const hint = validForms(Object.keys(custom));
  const parsed = parseModelId(modelId);
  if (parsed === undefined) {
    throw new UnknownModelError(modelId, `model ids have the form provider:model. ${hint}`);
  }
  const { provider, model } = parsed;

  switch (provider) {
    case 'openai':
    case 'anthropic':
    case 'google':
    case 'ollama':
      return { kind: provider, model };
    case 'openai-compatible':
      if (!providers['openai-compatible']?.baseURL) {
        throw new UnknownModelError(
          modelId,
          `the provider "openai-compatible" has no base URL configured; set providers['openai-compatible'].baseURL.`,
        );
      }
      return { kind: 'openai-compatible', model };
    case 'scripted': {
      if (model === 'auto') return { kind: 'scripted', model, program: autoProgram };
      const programs = options.scriptedPrograms ?? {};
      const program = Object.hasOwn(programs, model) ? programs[model] : undefined;
      if (program === undefined) {
        const known = ['auto', ...Object.keys(programs)].join(', ');
        throw new UnknownModelError(
          modelId,
          `no scripted program named "${model}" is configured (known: ${known}). ${hint}`,
        );
      }
      return { kind: 'scripted', model, program };
    }
  }

  if (Object.hasOwn(custom, provider)) {
    if (!custom[provider]?.baseURL) {
      throw new UnknownModelError(
        modelId,
        `the provider "${provider}" has no base URL configured; set providers.custom.${provider}.baseURL.`,
      );
    }
    return { kind: 'custom', provider, model };
  }
  throw new UnknownModelError(modelId, `the provider "${provider}" is not configured. ${hint}`);
}

function validForms(customNames: readonly string[]): string {
  const configured = customNames.length === 0 ? '' : ` (configured: ${customNames.join(', ')})`;
  return (
    `Use one of openai:, anthropic:, google:, openai-compatible:, ollama:, scripted:NAME, scripted:auto ` +
    `or a provider named under providers.custom${configured}.`
  );
}
