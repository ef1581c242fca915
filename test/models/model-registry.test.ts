import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createModelRegistry, validateModelId } from '../../src/models/model-registry.ts';
import type { ModelRegistryOptions } from '../../src/models/model-registry.ts';
import { parseModelId } from '../../src/models/model-id.ts';
import { parseScriptedProgram } from '../../src/models/scripted/scripted-program.ts';
import { UnknownModelError } from '../../src/models/unknown-model-error.ts';

const VALID_FORMS =
  'Use one of openai:, anthropic:, google:, openai-compatible:, ollama:, scripted:NAME, scripted:auto or a provider named under providers.custom.';

interface CapturedRequest {
  url: string;
  headers: Headers;
  body: any;
}

/** A fetch that records the request and fails it, so no test can reach a network. */
function capturingFetch(): { fetch: typeof globalThis.fetch; requests: CapturedRequest[] } {
  const requests: CapturedRequest[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    requests.push({
      url,
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    throw new Error('network disabled in tests');
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

async function firstRequest(
  options: ModelRegistryOptions & { fetch: typeof globalThis.fetch },
  modelId: string,
  requests: CapturedRequest[],
) {
  const model = createModelRegistry(options).resolve(modelId);
  await expect(generateText({ model, prompt: 'hi', maxRetries: 0 })).rejects.toThrow();
  expect(requests).toHaveLength(1);
  return requests[0]!;
}

function errorOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('model ids', () => {
  it('split on the first colon only', () => {
    expect(parseModelId('vllm:meta-llama/Llama-3.1-8B:fp8')).toEqual({
      provider: 'vllm',
      model: 'meta-llama/Llama-3.1-8B:fp8',
    });
    expect(parseModelId('ollama:llama3.1:8b')).toEqual({ provider: 'ollama', model: 'llama3.1:8b' });
    expect(parseModelId('gpt-4o')).toBeUndefined();
    expect(parseModelId(':gpt-4o')).toBeUndefined();
    expect(parseModelId('openai:')).toBeUndefined();
  });
});

describe('createModelRegistry', () => {
  const registry = createModelRegistry({
    providers: {
      'openai-compatible': { baseURL: 'http://127.0.0.1:9/v1' },
      custom: { vllm: { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'vllm-key' } },
    },
    scriptedPrograms: { demo: parseScriptedProgram({ rules: [{ say: 'hi' }] }, 'demo') },
  });

  it.each([
    ['openai:gpt-4o-mini', 'openai.responses', 'gpt-4o-mini'],
    ['anthropic:claude-3-5-haiku-latest', 'anthropic.messages', 'claude-3-5-haiku-latest'],
    ['google:gemini-2.0-flash', 'google.generative-ai', 'gemini-2.0-flash'],
    ['openai-compatible:test-model', 'openai-compatible.chat', 'test-model'],
    ['ollama:llama3.1:8b', 'ollama.chat', 'llama3.1:8b'],
    ['vllm:meta-llama/Llama-3.1-8B:fp8', 'vllm.chat', 'meta-llama/Llama-3.1-8B:fp8'],
    ['scripted:demo', 'scripted', 'demo'],
    ['scripted:auto', 'scripted', 'auto'],
  ])('resolves %s', (modelId, provider, model) => {
    const resolved = registry.resolve(modelId);
    expect(resolved.specificationVersion).toBe('v3');
    expect(resolved.provider).toBe(provider);
    expect(resolved.modelId).toBe(model);
    expect(() => registry.validate(modelId)).not.toThrow();
  });

  it('returns the same scripted model instance for the same id (fail counters persist)', () => {
    expect(registry.resolve('scripted:demo')).toBe(registry.resolve('scripted:demo'));
    expect(registry.resolve('scripted:auto')).not.toBe(registry.resolve('scripted:demo'));
  });

  it('rejects unknown providers with a message naming the id and the valid forms', () => {
    const error = errorOf(() => registry.resolve('foo:bar'));
    expect(error).toBeInstanceOf(UnknownModelError);
    expect((error as UnknownModelError).code).toBe('unknown_model');
    expect((error as UnknownModelError).modelId).toBe('foo:bar');
    expect((error as Error).message).toBe(
      `Unknown model "foo:bar": the provider "foo" is not configured. ${VALID_FORMS.replace('providers.custom.', 'providers.custom (configured: vllm).')}`,
    );
  });

  it('rejects malformed ids and unknown scripted programs', () => {
    for (const id of ['gpt-4o-mini', ':x', 'openai:', '']) {
      const error = errorOf(() => registry.resolve(id));
      expect(error).toBeInstanceOf(UnknownModelError);
      expect((error as Error).message).toContain(`Unknown model "${id}": model ids have the form provider:model.`);
    }
    expect((errorOf(() => registry.resolve('scripted:nope')) as Error).message).toMatch(
      /^Unknown model "scripted:nope": no scripted program named "nope" is configured \(known: auto, demo\)/,
    );
  });

  it('requires a base URL for openai-compatible', () => {
    const bare = createModelRegistry({});
    const error = errorOf(() => bare.resolve('openai-compatible:m'));
    expect(error).toBeInstanceOf(UnknownModelError);
    expect((error as Error).message).toContain("providers['openai-compatible'].baseURL");
  });

  it('rejects configuration that shadows built-in names', () => {
    expect(() => createModelRegistry({ providers: { custom: { openai: { baseURL: 'http://x' } } } })).toThrow(
      /built-in provider/,
    );
    expect(() =>
      createModelRegistry({ scriptedPrograms: { auto: parseScriptedProgram({ rules: [{ say: 'x' }] }, 'auto') } }),
    ).toThrow(/built-in scripted program/);
  });

  it('sends ollama requests to the default local endpoint with the full model name', async () => {
    const { fetch, requests } = capturingFetch();
    const request = await firstRequest({ fetch }, 'ollama:llama3.1:8b', requests);
    expect(request.url).toBe('http://127.0.0.1:11434/v1/chat/completions');
    expect(request.body.model).toBe('llama3.1:8b');
  });

  it('sends custom provider requests to its base URL with its API key', async () => {
    const { fetch, requests } = capturingFetch();
    const request = await firstRequest(
      { fetch, providers: { custom: { vllm: { baseURL: 'http://10.0.0.5:8000/v1', apiKey: 'vllm-key' } } } },
      'vllm:meta-llama/Llama-3.1-8B',
      requests,
    );
    expect(request.url).toBe('http://10.0.0.5:8000/v1/chat/completions');
    expect(request.headers.get('authorization')).toBe('Bearer vllm-key');
    expect(request.body.model).toBe('meta-llama/Llama-3.1-8B');
  });

  it('passes configured credentials and base URL to the openai provider', async () => {
    const { fetch, requests } = capturingFetch();
    const request = await firstRequest(
      { fetch, providers: { openai: { apiKey: 'sk-config', baseURL: 'http://127.0.0.1:9/openai' } } },
      'openai:gpt-4o-mini',
      requests,
    );
    expect(request.url.startsWith('http://127.0.0.1:9/openai/')).toBe(true);
    expect(request.headers.get('authorization')).toBe('Bearer sk-config');
    expect(request.body.model).toBe('gpt-4o-mini');
  });
});

describe('validateModelId', () => {
  it('accepts built-in forms without options and never creates clients', () => {
    for (const id of [
      'openai:gpt-4o-mini',
      'anthropic:claude-x',
      'google:gemini-x',
      'ollama:llama3',
      'scripted:auto',
    ]) {
      expect(() => validateModelId(id)).not.toThrow();
    }
  });

  it('knows custom providers and scripted programs only through options', () => {
    expect(() => validateModelId('vllm:m')).toThrow(UnknownModelError);
    expect(() =>
      validateModelId('vllm:m', { providers: { custom: { vllm: { baseURL: 'http://x/v1' } } } }),
    ).not.toThrow();
    expect(() => validateModelId('scripted:demo')).toThrow(/no scripted program named "demo"/);
    expect(() => validateModelId('openai-compatible:m')).toThrow(/baseURL/);
    expect(() => validateModelId('foo:bar')).toThrow(
      `Unknown model "foo:bar": the provider "foo" is not configured. ${VALID_FORMS}`,
    );
  });
});
