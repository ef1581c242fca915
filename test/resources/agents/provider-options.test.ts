import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatonError } from '../../../src/domain/errors/baton-error.ts';
import { checkProviderOptions } from '../../../src/resources/agents/provider-options.ts';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';

const APP = 'projects/default/locations/global/apps/default';

function refusal(value: unknown): { param: string | null | undefined; message: string } {
  try {
    checkProviderOptions(value);
  } catch (error) {
    expect(error).toBeInstanceOf(BatonError);
    const batonError = error as BatonError;
    expect(batonError.code).toBe('invalid_provider_options');
    return { param: batonError.param, message: batonError.message };
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

describe('provider_options: validated per provider when an agent is written', () => {
  it('accepts each provider’s documented options', () => {
    const options = {
      anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 }, effort: 'high', sendReasoning: true },
      google: { thinkingConfig: { thinkingLevel: 'high', includeThoughts: true }, cachedContent: 'cachedContents/x' },
      openai: { reasoningEffort: 'low', reasoningSummary: 'auto', serviceTier: 'flex', store: false },
      ollama: { reasoningEffort: 'high' },
    };
    expect(checkProviderOptions(options)).toEqual(options);
  });

  it.each([
    [
      { anthropic: { thinking: { type: 'enabled', budgetTokens: 100 } } },
      'provider_options.anthropic.thinking.budgetTokens',
    ],
    [{ anthropic: { thinkng: {} } }, 'provider_options.anthropic.thinkng'],
    [
      { google: { thinkingConfig: { thinkingLevel: 'extreme' } } },
      'provider_options.google.thinkingConfig.thinkingLevel',
    ],
    [{ openai: { reasoningEffort: 'maximum' } }, 'provider_options.openai.reasoningEffort'],
    [{ openai: { parallelToolCalls: false } }, 'provider_options.openai.parallelToolCalls'],
    [{ openai: { include: ['reasoning.encrypted_content'] } }, 'provider_options.openai.include'],
    [{ anthropic: 'fast' }, 'provider_options.anthropic'],
    [{ scripted: {} }, 'provider_options.scripted'],
    [{ 'not a name': {} }, 'provider_options.not a name'],
    [[], 'provider_options'],
  ])('refuses %j naming %s', (value, param) => {
    expect(refusal(value).param).toBe(param);
  });

  it('says what to use instead of an option Baton sets itself, and where the options are listed', () => {
    expect(refusal({ openai: { parallelToolCalls: false } }).message).toContain('use parallel_tool_calls instead');
    expect(refusal({ anthropic: { thinkng: {} } }).message).toContain('docs/provider-options.md');
  });
});

describe('provider_options over the APIs', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton();
  });
  afterAll(async () => baton?.close());

  it('the agents API stores them, shows them, and refuses a bad one with 400 naming the field, writing nothing', async () => {
    const good = await baton.request('POST', '/v1/agents', {
      name: 'thinker',
      model: 'anthropic:claude-sonnet-4-5',
      provider_options: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
    });
    expect(good.status, JSON.stringify(good.body)).toBe(201);
    expect(good.body.provider_options).toEqual({ anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } });

    const bad = await baton.request('POST', '/v1/agents', {
      name: 'typo',
      model: 'google:gemini-3-flash',
      provider_options: { google: { thinkingConfig: { thinkingLevel: 'extreme' } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'invalid_provider_options',
      param: 'provider_options.google.thinkingConfig.thinkingLevel',
    });
    expect((await baton.request('GET', '/v1/agents/typo')).status).toBe(404);
  });

  it('CES agents carry them in modelSettings.providerOptions, checked the same way', async () => {
    const created = await baton.request('POST', `/v1/${APP}/agents?agentId=gemini`, {
      displayName: 'Gemini',
      modelSettings: {
        model: 'google:gemini-3-flash',
        providerOptions: { google: { thinkingConfig: { thinkingLevel: 'low' } } },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.modelSettings.providerOptions).toEqual({
      google: { thinkingConfig: { thinkingLevel: 'low' } },
    });

    const bad = await baton.request('POST', `/v1/${APP}/agents?agentId=bad`, {
      displayName: 'Bad',
      modelSettings: { model: 'openai:gpt-5-mini', providerOptions: { openai: { reasoningEffort: 'maximum' } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.status).toBe('INVALID_ARGUMENT');
    expect(JSON.stringify(bad.body)).toContain('agent.modelSettings.providerOptions.openai.reasoningEffort');
  });
});
