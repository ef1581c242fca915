import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isMalformedJson, startFakeHttpServer, writeJson, writeSse } from './fake-http-server.ts';
import type { FakeRequestHandler } from './fake-http-server.ts';
import type {
  ModelScript,
  ProviderFake,
  Rejection,
  ScriptCall,
  ScriptReply,
  ScriptToolResult,
  ScriptView,
} from './provider-fake.ts';

/**
 * A local stand-in for the Gemini API's `generateContent` / `streamGenerateContent` (v1beta), as
 * `@ai-sdk/google` calls it: `POST {baseURL}/models/{model}:streamGenerateContent?alt=sse` (or
 * `:generateContent`), with the key in the `x-goog-api-key` header (`?key=` works too).
 *
 * What the "model" says comes from a `ModelScript`. The fake answers in Gemini's wire format and,
 * for Gemini 3 models, mints thought signatures as Google documents
 * (https://ai.google.dev/gemini-api/docs/thought-signatures): on the FIRST `functionCall` part of a
 * response that calls functions (parallel calls after it carry none), otherwise on the last text
 * part. A signature is base64 of a random nonce and an HMAC (per-fake key) over the model id and
 * the content it signs (the call's name and arguments, or the text), so the fake can tell an exact
 * echo from a missing, altered, moved or foreign one.
 *
 * Rules enforced on every request (Google's status, envelope and wording; see `googleErrorMessages`):
 * - Authentication: no key → 403 PERMISSION_DENIED; with `options.apiKey`, another key → 400 API_KEY_INVALID.
 * - Model: unknown model → 404 NOT_FOUND.
 * - Shape: contents non-empty, roles `user`/`model`, parts non-empty, exactly one data field per
 *   part, no unknown fields on contents and parts; not both `thinkingBudget` and `thinkingLevel`.
 * - Turn order: a function call turn follows a user turn or a function response turn; a function
 *   response turn follows a function call turn; the turn after a model content with N
 *   `functionCall` parts is a user content with exactly N `functionResponse` parts whose names (and
 *   ids, when both sides carry them) match the calls.
 * - Signatures, anywhere in `contents`: a non-dummy `thoughtSignature` must be one this fake minted
 *   for this model and for exactly the content of the part carrying it ("Corrupted thought signature.").
 * - Signatures, current turn (every model content after the last user content holding text),
 *   Gemini 3 models: every call the fake issued with a signature comes back with exactly that
 *   signature; the first call of a model content the fake never issued carries some signature.
 *   Google's dummy signatures (`skip_thought_signature_validator`,
 *   `context_engineering_is_the_way_to_go`) are accepted on calls this fake never issued and on
 *   the unsigned parallel calls it issued, but NOT in place of a real signature it issued: there
 *   the fake is deliberately stricter than Google (which lets a dummy through), because Baton must
 *   echo the real one. `@ai-sdk/google` injects `skip_thought_signature_validator` when a Gemini 3
 *   call lost its signature, so a lost signature is still refused.
 */

/** The dummy signatures Google documents for histories that were not produced by Gemini. */
export const GOOGLE_DUMMY_THOUGHT_SIGNATURES: readonly string[] = [
  'skip_thought_signature_validator',
  'context_engineering_is_the_way_to_go',
];

/**
 * Google's error wording, as the Gemini API returns it (collected from error reports of real API
 * responses; the fake reuses it verbatim).
 */
export const googleErrorMessages = {
  /** 403 PERMISSION_DENIED, no key at all. */
  missingApiKey:
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer " +
    'identity to call this API.',
  /** 400 INVALID_ARGUMENT, reason API_KEY_INVALID. */
  invalidApiKey: 'API key not valid. Please pass a valid API key.',
  /** 404 NOT_FOUND. `method` is `generateContent` or `streamGenerateContent`. */
  modelNotFound: (model: string, method: string) =>
    `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available ` +
    `models and their supported methods.`,
  invalidJson: 'Invalid JSON payload received. Unexpected token.',
  contentsNotSpecified: '* GenerateContentRequest.contents: contents is not specified\n',
  partsEmpty: (i: number) => `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`,
  partDataOneof: (i: number, j: number) =>
    `* GenerateContentRequest.contents[${i}].parts[${j}].data: required oneof field 'data' must have one initialized field\n`,
  unknownField: (name: string, at: string) =>
    `Invalid JSON payload received. Unknown name "${name}" at '${at}': Cannot find field.`,
  invalidRole: 'Please use a valid role: user, model.',
  thinkingBudgetAndLevel: 'You can only set only one of thinking budget and thinking level.',
  functionCallTurnOrder:
    'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
  functionResponseTurnOrder: 'Please ensure that function response turn comes immediately after a function call turn.',
  functionResponseCount:
    'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
  /** `position` is 1-based: the first model content (`contents[1]`) is reported as position 2. */
  missingThoughtSignature: (name: string, position: number) =>
    `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing ` +
    `thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ` +
    `${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
  corruptedThoughtSignature: 'Corrupted thought signature.',
} as const;

export interface GoogleGenerateContentFakeOptions {
  /** The only key accepted; unset, any non-empty key is. */
  apiKey?: string;
  /**
   * Whether the functionCall parts the fake emits carry an `id`. `'mirror'` (default): when the
   * request's functionCall parts carry ids. The Gemini Developer API often omits them.
   */
  functionCallIds?: 'mirror' | 'always' | 'never';
  /** Which model ids exist (default: ids starting with `gemini-` or `gemma-`). */
  isKnownModel?: (model: string) => boolean;
}

/** A thought signature the fake minted, with what it signs. */
export interface IssuedThoughtSignature {
  signature: string;
  model: string;
  responseId: string;
  kind: 'functionCall' | 'text';
  /** For `functionCall`: the call it rides on. */
  call?: { name: string; args: Record<string, unknown>; id?: string };
  /** For `text`: the text of the response. */
  text?: string;
}

export interface GoogleGenerateContentFake extends ProviderFake {
  /** Every thought signature minted so far, in order. */
  issuedSignatures(): IssuedThoughtSignature[];
  /** Whether `signature` is exactly one this fake minted. */
  isIssuedSignature(signature: string): boolean;
}

interface IssuedCall {
  name: string;
  argsKey: string;
  id: string | undefined;
  signature: string | undefined;
}

interface IssuedResponse {
  model: string;
  calls: IssuedCall[];
}

class GoogleApiError extends Error {
  constructor(
    readonly code: number,
    readonly status: string,
    message: string,
    readonly details?: unknown[],
  ) {
    super(message);
  }

  envelope(): unknown {
    return {
      error: {
        code: this.code,
        message: this.message,
        status: this.status,
        ...(this.details ? { details: this.details } : {}),
      },
    };
  }
}

const invalid = (message: string) => new GoogleApiError(400, 'INVALID_ARGUMENT', message);

const CONTENT_FIELDS = new Set(['role', 'parts']);
const PART_DATA_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'toolCall',
  'toolResponse',
];
const PART_FIELDS = new Set([
  ...PART_DATA_FIELDS,
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'partMetadata',
  'mediaResolution',
]);

/** Gemini 3 and later (the models that mint and check thought signatures), by the model id. */
export function isGemini3OrLater(model: string): boolean {
  const match = /(?:^|\/)gemini-(\d+)/i.exec(model);
  return match != null && Number(match[1]) >= 3;
}

/** JSON with object keys sorted, so equal arguments compare equal whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value != null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const estimateTokens = (chars: number) => Math.max(1, Math.ceil(chars / 4));

const isObject = (value: unknown): value is Record<string, any> =>
  value != null && typeof value === 'object' && !Array.isArray(value);

function mintId(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += alphabet[byte % alphabet.length];
  return id;
}

export async function startGoogleGenerateContentFake(
  script: ModelScript,
  options: GoogleGenerateContentFakeOptions = {},
): Promise<GoogleGenerateContentFake> {
  const rejections: Rejection[] = [];
  const hmacKey = randomBytes(32);
  const issuedSignatures: IssuedThoughtSignature[] = [];
  const issuedSignatureSet = new Set<string>();
  const issuedResponses: IssuedResponse[] = [];
  const isKnownModel = options.isKnownModel ?? ((model: string) => /^(gemini|gemma)-/.test(model));
  let accepted = 0;

  const mac = (nonce: Buffer, binding: string) => createHmac('sha256', hmacKey).update(nonce).update(binding).digest();
  const callBinding = (model: string, name: string, argsKey: string) => `functionCall\0${model}\0${name}\0${argsKey}`;
  const textBinding = (model: string, text: string) => `text\0${model}\0${text}`;

  function sign(binding: string): string {
    const nonce = randomBytes(16);
    return Buffer.concat([nonce, mac(nonce, binding)]).toString('base64');
  }

  /** Whether `signature` was minted by this fake for exactly `binding`. */
  function verify(signature: string, binding: string): boolean {
    if (!issuedSignatureSet.has(signature)) return false;
    const raw = Buffer.from(signature, 'base64');
    if (raw.length !== 48) return false;
    const expected = mac(raw.subarray(0, 16), binding);
    return timingSafeEqual(raw.subarray(16), expected);
  }

  const isDummy = (signature: unknown) =>
    typeof signature === 'string' && GOOGLE_DUMMY_THOUGHT_SIGNATURES.includes(signature);

  function checkAuth(req: IncomingMessage, url: URL): void {
    const header = req.headers['x-goog-api-key'];
    const key = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('key') ?? '';
    if (key === '') throw new GoogleApiError(403, 'PERMISSION_DENIED', googleErrorMessages.missingApiKey);
    if (options.apiKey != null && key !== options.apiKey) {
      throw new GoogleApiError(400, 'INVALID_ARGUMENT', googleErrorMessages.invalidApiKey, [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
      ]);
    }
  }

  function checkShape(body: any): any[] {
    if (!isObject(body)) throw invalid(googleErrorMessages.invalidJson);
    const contents = body.contents;
    if (!Array.isArray(contents) || contents.length === 0) throw invalid(googleErrorMessages.contentsNotSpecified);
    contents.forEach((content: unknown, i: number) => {
      if (!isObject(content)) throw invalid(googleErrorMessages.partsEmpty(i));
      for (const key of Object.keys(content)) {
        if (!CONTENT_FIELDS.has(key)) throw invalid(googleErrorMessages.unknownField(key, `contents[${i}]`));
      }
      if (content.role != null && content.role !== 'user' && content.role !== 'model') {
        throw invalid(googleErrorMessages.invalidRole);
      }
      if (!Array.isArray(content.parts) || content.parts.length === 0) throw invalid(googleErrorMessages.partsEmpty(i));
      content.parts.forEach((part: unknown, j: number) => {
        if (!isObject(part)) throw invalid(googleErrorMessages.partDataOneof(i, j));
        for (const key of Object.keys(part)) {
          if (!PART_FIELDS.has(key)) throw invalid(googleErrorMessages.unknownField(key, `contents[${i}].parts[${j}]`));
        }
        const dataFields = PART_DATA_FIELDS.filter((field) => part[field] != null);
        if (dataFields.length !== 1) throw invalid(googleErrorMessages.partDataOneof(i, j));
      });
    });
    const thinking = body.generationConfig?.thinkingConfig;
    if (isObject(thinking) && thinking.thinkingBudget != null && thinking.thinkingLevel != null) {
      throw invalid(googleErrorMessages.thinkingBudgetAndLevel);
    }
    return contents;
  }

  const partsOf = (content: any): any[] => content.parts as any[];
  const callsOf = (content: any) => partsOf(content).filter((part) => isObject(part.functionCall));
  const responsesOf = (content: any) => partsOf(content).filter((part) => isObject(part.functionResponse));
  const roleOf = (content: any): 'user' | 'model' => (content.role === 'model' ? 'model' : 'user');
  const holdsUserText = (content: any) =>
    roleOf(content) === 'user' &&
    responsesOf(content).length === 0 &&
    partsOf(content).some((part) => typeof part.text === 'string');

  function checkTurnOrder(contents: any[]): void {
    contents.forEach((content, i) => {
      const previous = i > 0 ? contents[i - 1] : undefined;
      const calls = roleOf(content) === 'model' ? callsOf(content) : [];
      if (calls.length > 0) {
        if (previous == null || roleOf(previous) !== 'user') throw invalid(googleErrorMessages.functionCallTurnOrder);
        const next = contents[i + 1];
        const answers = next != null && roleOf(next) === 'user' ? responsesOf(next) : [];
        if (answers.length !== calls.length || !answersMatch(calls, answers)) {
          throw invalid(googleErrorMessages.functionResponseCount);
        }
      }
      if (roleOf(content) === 'user' && responsesOf(content).length > 0) {
        if (previous == null || roleOf(previous) !== 'model' || callsOf(previous).length === 0) {
          throw invalid(googleErrorMessages.functionResponseTurnOrder);
        }
      }
    });
  }

  /** Each response answers a distinct call: by id when both carry one, otherwise by name. */
  function answersMatch(calls: any[], answers: any[]): boolean {
    const open = calls.map((part) => part.functionCall as { name?: string; id?: string });
    for (const answer of answers.map((part) => part.functionResponse as { name?: string; id?: string })) {
      const index = open.findIndex((call) =>
        call.id != null && answer.id != null
          ? call.id === answer.id && call.name === answer.name
          : call.name === answer.name,
      );
      if (index < 0) return false;
      open.splice(index, 1);
    }
    return true;
  }

  function checkSignatures(model: string, contents: any[]): void {
    let lastUserText = -1;
    contents.forEach((content, i) => {
      if (holdsUserText(content)) lastUserText = i;
    });
    contents.forEach((content, i) => {
      if (roleOf(content) !== 'model') return;
      // Anywhere: a real-looking signature must be this fake's, for this model and this exact part.
      for (const part of partsOf(content)) {
        const signature: unknown = part.thoughtSignature;
        if (signature == null || isDummy(signature)) continue;
        const binding =
          isObject(part.functionCall) && part.thought !== true
            ? callBinding(model, String(part.functionCall.name), canonicalJson(part.functionCall.args ?? {}))
            : typeof part.text === 'string' && part.thought !== true
              ? textBinding(model, part.text)
              : undefined;
        if (typeof signature !== 'string' || binding == null || !verify(signature, binding)) {
          throw invalid(googleErrorMessages.corruptedThoughtSignature);
        }
      }
      // Current turn, Gemini 3: the function-calling loop in progress must carry its signatures.
      if (i <= lastUserText || !isGemini3OrLater(model)) return;
      const calls = callsOf(content);
      if (calls.length === 0) return;
      const position = i + 1;
      const sameCalls = (issued: IssuedResponse) =>
        issued.model === model &&
        issued.calls.length === calls.length &&
        issued.calls.every((call, j) => {
          const fc = calls[j].functionCall;
          return (
            call.name === fc.name &&
            call.argsKey === canonicalJson(fc.args ?? {}) &&
            (call.id == null || call.id === fc.id)
          );
        });
      const candidates = issuedResponses.filter(sameCalls);
      if (candidates.length === 0) {
        // Calls this fake never issued (another model's, or altered): Google's rule, dummies allowed.
        const first = calls[0];
        if (first.thoughtSignature == null) {
          throw invalid(googleErrorMessages.missingThoughtSignature(String(first.functionCall.name), position));
        }
        return;
      }
      const problem = (issued: IssuedResponse): GoogleApiError | undefined => {
        for (const [j, call] of issued.calls.entries()) {
          const got: unknown = calls[j].thoughtSignature;
          if (call.signature != null) {
            if (got == null || isDummy(got)) {
              return invalid(googleErrorMessages.missingThoughtSignature(call.name, position));
            }
            if (got !== call.signature) return invalid(googleErrorMessages.corruptedThoughtSignature);
          } else if (got != null && !isDummy(got)) {
            return invalid(googleErrorMessages.corruptedThoughtSignature);
          }
        }
        return undefined;
      };
      const problems = candidates.map(problem);
      if (problems.some((p) => p == null)) return;
      throw problems[problems.length - 1]!;
    });
  }

  function functionResponseView(contents: any[]): ScriptToolResult[] {
    const last = contents[contents.length - 1];
    if (last == null || roleOf(last) !== 'user' || responsesOf(last).length === 0) return [];
    const previous = contents[contents.length - 2];
    const previousCalls = previous != null ? callsOf(previous).map((part) => part.functionCall) : [];
    const results: ScriptToolResult[] = [];
    let current: ScriptToolResult | undefined;
    let media: string[] = [];
    const flush = () => {
      if (current == null) return;
      current.mediaTypes = media;
      current.output = [current.output, ...media.map((type) => (type.startsWith('image/') ? '[image]' : '[file]'))]
        .filter((line) => line !== '')
        .join('\n');
      results.push(current);
    };
    for (const part of partsOf(last)) {
      if (isObject(part.functionResponse)) {
        flush();
        const fr = part.functionResponse;
        const name = typeof fr.name === 'string' ? fr.name : undefined;
        const call =
          previousCalls.find((c: any) => fr.id != null && c.id === fr.id) ??
          previousCalls.filter((c: any) => c.name === name)[results.length];
        const { output, isError } = describeResponse(fr.response);
        current = {
          callId: String(fr.id ?? call?.id ?? `${name ?? 'function'}#${results.length}`),
          name,
          output,
          isError,
          mediaTypes: [],
        };
        media = [];
        for (const nested of Array.isArray(fr.parts) ? fr.parts : []) {
          const type = nested?.inlineData?.mimeType ?? nested?.fileData?.mimeType;
          if (typeof type === 'string') media.push(type);
        }
      } else if (current != null) {
        // Older models: the SDK puts a result's media next to its functionResponse.
        const type = part.inlineData?.mimeType ?? part.fileData?.mimeType;
        if (typeof type === 'string') media.push(type);
      }
    }
    flush();
    return results;
  }

  function buildView(model: string, body: any, contents: any[]): ScriptView {
    const tools: string[] = [];
    for (const tool of Array.isArray(body.tools) ? body.tools : []) {
      for (const declaration of Array.isArray(tool?.functionDeclarations) ? tool.functionDeclarations : []) {
        if (typeof declaration?.name === 'string') tools.push(declaration.name);
      }
    }
    const last = contents[contents.length - 1];
    const lastUserText =
      last != null && holdsUserText(last)
        ? partsOf(last)
            .filter((part) => typeof part.text === 'string' && part.thought !== true)
            .map((part) => part.text as string)
            .join('\n')
        : null;
    return {
      model,
      requestIndex: accepted,
      tools,
      lastUserText,
      toolResults: functionResponseView(contents),
      reasoningRequested: body.generationConfig?.thinkingConfig?.includeThoughts === true,
      body,
    };
  }

  /** Builds the response's parts and usage, minting ids and signatures, and remembers what it issued. */
  function answer(model: string, body: any, contents: any[], view: ScriptView, reply: ScriptReply) {
    const responseId = randomBytes(17).toString('base64url').slice(0, 23);
    const gemini3 = isGemini3OrLater(model);
    const requestHasIds = contents.some((content) => callsOf(content).some((part) => part.functionCall.id != null));
    const mode = options.functionCallIds ?? 'mirror';
    const withIds = mode === 'always' || (mode === 'mirror' && requestHasIds);
    const thoughtParts =
      view.reasoningRequested && reply.reasoning ? [{ text: reply.reasoning, thought: true as const }] : [];
    const text = reply.text ?? '';
    const calls: ScriptCall[] = reply.calls ?? [];
    const issuedCalls: IssuedCall[] = [];
    const callParts = calls.map((call, j) => {
      const argsKey = canonicalJson(call.arguments);
      const id = withIds ? mintId(8) : undefined;
      const signature = gemini3 && j === 0 ? sign(callBinding(model, call.name, argsKey)) : undefined;
      issuedCalls.push({ name: call.name, argsKey, id, signature });
      if (signature != null) {
        issuedSignatures.push({
          signature,
          model,
          responseId,
          kind: 'functionCall',
          call: { name: call.name, args: call.arguments, ...(id != null ? { id } : {}) },
        });
        issuedSignatureSet.add(signature);
      }
      return {
        functionCall: { ...(id != null ? { id } : {}), name: call.name, args: call.arguments },
        ...(signature != null ? { thoughtSignature: signature } : {}),
      };
    });
    let textSignature: string | undefined;
    if (gemini3 && calls.length === 0) {
      textSignature = sign(textBinding(model, text));
      issuedSignatures.push({ signature: textSignature, model, responseId, kind: 'text', text });
      issuedSignatureSet.add(textSignature);
    }
    issuedResponses.push({ model, calls: issuedCalls });

    const promptChars = JSON.stringify(contents).length + JSON.stringify(body.systemInstruction ?? '').length;
    const reasoningTokens =
      reply.usage?.reasoningTokens ?? (reply.reasoning ? estimateTokens(reply.reasoning.length) : 0);
    const promptTokenCount = reply.usage?.inputTokens ?? estimateTokens(promptChars);
    const candidatesTokenCount =
      reply.usage?.outputTokens != null
        ? Math.max(0, reply.usage.outputTokens - reasoningTokens)
        : estimateTokens(text.length + (calls.length > 0 ? JSON.stringify(calls).length : 0));
    const usageMetadata = {
      promptTokenCount,
      candidatesTokenCount,
      totalTokenCount: promptTokenCount + candidatesTokenCount + reasoningTokens,
      ...(reply.usage?.cachedInputTokens != null ? { cachedContentTokenCount: reply.usage.cachedInputTokens } : {}),
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokenCount }],
      ...(reasoningTokens > 0 ? { thoughtsTokenCount: reasoningTokens } : {}),
    };
    return { responseId, thoughtParts, text, textSignature, callParts, usageMetadata };
  }

  type Answer = ReturnType<typeof answer>;

  /** The whole answer as one `GenerateContentResponse` (non-streaming). */
  function wholeResponse(model: string, a: Answer): unknown {
    const parts: unknown[] = [...a.thoughtParts];
    if (a.text !== '' || a.textSignature != null) {
      parts.push({ text: a.text, ...(a.textSignature != null ? { thoughtSignature: a.textSignature } : {}) });
    }
    parts.push(...a.callParts);
    return {
      candidates: [{ content: { parts, role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: a.usageMetadata,
      modelVersion: model,
      responseId: a.responseId,
    };
  }

  /** The answer as stream chunks: thoughts, text deltas, the calls, and a closing chunk with finishReason. */
  function streamChunks(model: string, a: Answer): unknown[] {
    const chunk = (parts: unknown[], finish = false) => ({
      candidates: [{ content: { parts, role: 'model' }, ...(finish ? { finishReason: 'STOP' } : {}), index: 0 }],
      usageMetadata: a.usageMetadata,
      modelVersion: model,
      responseId: a.responseId,
    });
    const chunks: unknown[] = a.thoughtParts.map((part) => chunk([part]));
    if (a.text !== '') {
      const cut = Math.ceil(a.text.length / 2);
      for (const piece of [a.text.slice(0, cut), a.text.slice(cut)])
        if (piece !== '') chunks.push(chunk([{ text: piece }]));
    }
    if (a.callParts.length > 0) chunks.push(chunk(a.callParts));
    // Gemini closes with an empty text part; a text-only Gemini 3 answer's signature rides on it.
    chunks.push(chunk([{ text: '', ...(a.textSignature != null ? { thoughtSignature: a.textSignature } : {}) }], true));
    return chunks;
  }

  const handle: FakeRequestHandler = (recorded, raw, req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const reject = (error: GoogleApiError) => {
      const body = error.envelope();
      rejections.push({ request: recorded, status: error.code, body });
      sendJson(res, error.code, body);
    };
    try {
      const route = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname);
      if (req.method !== 'POST' || route == null) {
        throw new GoogleApiError(404, 'NOT_FOUND', `Requested entity was not found.`);
      }
      const model = decodeURIComponent(route[1]!);
      const method = route[2]!;
      checkAuth(req, url);
      if (!isKnownModel(model))
        throw new GoogleApiError(404, 'NOT_FOUND', googleErrorMessages.modelNotFound(model, method));
      if (isMalformedJson(recorded, raw)) throw invalid(googleErrorMessages.invalidJson);
      const body = recorded.body;
      const contents = checkShape(body);
      checkTurnOrder(contents);
      checkSignatures(model, contents);

      const view = buildView(model, body, contents);
      let reply: ScriptReply;
      try {
        reply = script(view);
      } catch (error) {
        sendJson(res, 500, {
          error: {
            code: 500,
            message: `Internal error encountered. (fake script threw: ${String(error)})`,
            status: 'INTERNAL',
          },
        });
        return;
      }
      accepted++;
      const a = answer(model, body, contents, view, reply);
      if (method === 'generateContent') {
        sendJson(res, 200, wholeResponse(model, a));
      } else if (url.searchParams.get('alt') === 'sse') {
        const events = streamChunks(model, a).map((c) => ({ data: JSON.stringify(c) }));
        writeSse(res, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }, events, '\r\n');
      } else {
        // Without alt=sse, streamGenerateContent streams one JSON array of the same chunks.
        res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
        res.end(
          `[${streamChunks(model, a)
            .map((c) => JSON.stringify(c))
            .join(',\r\n')}]`,
        );
      }
    } catch (error) {
      if (error instanceof GoogleApiError) reject(error);
      else sendJson(res, 500, { error: { code: 500, message: String(error), status: 'INTERNAL' } });
    }
  };

  const server = await startFakeHttpServer(handle);

  return {
    baseURL: `${server.origin}/v1beta`,
    requests: server.requests,
    rejections,
    issuedSignatures: () => [...issuedSignatures],
    isIssuedSignature: (signature: string) => issuedSignatureSet.has(signature),
    close: server.close,
  };
}

/**
 * A functionResponse's `response` as text. `@ai-sdk/google` sends `{ name, content }` (content is
 * the text, or the JSON value); Google documents `output` / `error` keys. Only an `error` key
 * marks an error: the SDK sends failed tool results exactly like successful ones.
 */
function describeResponse(response: unknown): { output: string; isError: boolean } {
  const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  if (!isObject(response)) return { output: asText(response), isError: false };
  if ('content' in response) return { output: asText(response.content), isError: false };
  if ('output' in response) return { output: asText(response.output), isError: false };
  if ('error' in response) return { output: asText(response.error), isError: true };
  return { output: asText(response), isError: false };
}

/** Google names the charset of its JSON answers. */
function sendJson(res: ServerResponse, status: number, body: unknown): void {
  writeJson(res, status, body, { 'content-type': 'application/json; charset=UTF-8' });
}
