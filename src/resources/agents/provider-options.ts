import { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject, ProviderOptions } from '../../domain/records.ts';

/**
 * An agent's `provider_options`: settings passed through to the model provider on every step, by
 * the AI SDK's provider namespace and with the AI SDK's option names. Each provider's options are
 * checked here, when the agent is written, against the options Baton supports for it: a typo or
 * a wrong value is refused with the field named, instead of failing (or being ignored) at the
 * first turn. Options Baton controls itself (parallel calls, what OpenAI includes) are refused
 * with the setting to use instead.
 */

const openaiOptions = z
  .object({
    reasoningEffort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']),
    reasoningSummary: z.enum(['auto', 'concise', 'detailed']),
    serviceTier: z.enum(['auto', 'flex', 'priority', 'default']),
    textVerbosity: z.enum(['low', 'medium', 'high']),
    /** false: OpenAI keeps nothing; Baton then asks for the reasoning's encrypted content. */
    store: z.boolean(),
    promptCacheKey: z.string().max(1_024),
    promptCacheRetention: z.enum(['in_memory', '24h']),
    safetyIdentifier: z.string().max(1_024),
    user: z.string().max(1_024),
    strictJsonSchema: z.boolean(),
  })
  .partial()
  .strict();

const anthropicOptions = z
  .object({
    thinking: z.discriminatedUnion('type', [
      z.object({ type: z.literal('enabled'), budgetTokens: z.number().int().min(1_024).max(1_000_000) }).strict(),
      z
        .object({ type: z.literal('adaptive'), display: z.enum(['omitted', 'summarized', 'updates']).optional() })
        .strict(),
      z.object({ type: z.literal('disabled') }).strict(),
    ]),
    effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']),
    sendReasoning: z.boolean(),
    cacheControl: z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() }).strict(),
    metadata: z.object({ userId: z.string().max(256) }).strict(),
    speed: z.enum(['fast', 'standard']),
  })
  .partial()
  .strict();

const harmCategory = z.enum([
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
  'HARM_CATEGORY_CIVIC_INTEGRITY',
]);
const harmThreshold = z.enum(['BLOCK_LOW_AND_ABOVE', 'BLOCK_MEDIUM_AND_ABOVE', 'BLOCK_ONLY_HIGH', 'BLOCK_NONE', 'OFF']);

const googleOptions = z
  .object({
    thinkingConfig: z
      .object({
        /** -1 lets the model decide; 0 turns thinking off where the model allows it. */
        thinkingBudget: z.number().int().min(-1).max(1_000_000),
        thinkingLevel: z.enum(['minimal', 'low', 'medium', 'high']),
        includeThoughts: z.boolean(),
      })
      .partial()
      .strict(),
    cachedContent: z.string().max(1_024),
    safetySettings: z.array(z.object({ category: harmCategory, threshold: harmThreshold }).strict()).max(10),
    mediaResolution: z.enum(['MEDIA_RESOLUTION_LOW', 'MEDIA_RESOLUTION_MEDIUM', 'MEDIA_RESOLUTION_HIGH']),
    structuredOutputs: z.boolean(),
  })
  .partial()
  .strict();

/** Ollama, vLLM, LM Studio and other OpenAI-compatible servers, under their provider's name. */
const compatibleOptions = z
  .object({
    reasoningEffort: z.string().max(64),
    textVerbosity: z.string().max(64),
    user: z.string().max(1_024),
    strictJsonSchema: z.boolean(),
  })
  .partial()
  .strict();

const SCHEMAS: Record<string, z.ZodType> = {
  openai: openaiOptions,
  anthropic: anthropicOptions,
  google: googleOptions,
};

/** Options Baton sets itself, and the agent setting that controls each. */
const ENGINE_OWNED: Record<string, string> = {
  parallelToolCalls: 'parallel_tool_calls',
  disableParallelToolUse: 'parallel_tool_calls',
  include: 'nothing: Baton asks for encrypted reasoning itself when store is false',
  maxOutputTokens: 'max_output_tokens',
  temperature: 'temperature',
};

const NAMESPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Checks `provider_options` (at `param`) and returns it as stored. */
export function checkProviderOptions(value: unknown, param = 'provider_options'): ProviderOptions {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(param, `${param} must be an object of options by provider, e.g. {"anthropic": {"thinking": {…}}}.`);
  }
  const result: ProviderOptions = {};
  for (const [namespace, options] of Object.entries(value)) {
    const at = `${param}.${namespace}`;
    if (!NAMESPACE_PATTERN.test(namespace) || namespace === 'scripted') {
      throw invalid(
        at,
        `${at}: '${namespace}' is not a provider namespace (openai, anthropic, google, or an OpenAI-compatible provider's name).`,
      );
    }
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      throw invalid(at, `${at} must be an object of ${namespace}'s options.`);
    }
    for (const key of Object.keys(options)) {
      const owner = ENGINE_OWNED[key];
      if (owner !== undefined) throw invalid(`${at}.${key}`, `${at}.${key} is set by Baton; use ${owner} instead.`);
    }
    const parsed = (SCHEMAS[namespace] ?? compatibleOptions).safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = [at, ...(issue?.path ?? []).map(String)].join('.');
      const unknownKeys = issue?.code === 'unrecognized_keys' ? issue.keys : [];
      const message =
        unknownKeys.length > 0
          ? `${path}: unknown option ${unknownKeys.map((key) => `'${key}'`).join(', ')} for ${namespace}; ` +
            `the options Baton passes are listed in docs/provider-options.md.`
          : `${path}: ${issue?.message ?? 'invalid value'}.`;
      throw invalid(unknownKeys.length > 0 ? `${path}.${unknownKeys[0] ?? ''}` : path, message);
    }
    result[namespace] = parsed.data as JsonObject;
  }
  return result;
}

function invalid(param: string, message: string): BatonError {
  return new BatonError('invalid_provider_options', message, { param });
}
