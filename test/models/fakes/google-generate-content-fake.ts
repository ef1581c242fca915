import { isMalformedJson, startFakeHttpServer } from './fake-http-server.ts';
import type { FakeRequestHandler } from './fake-http-server.ts';
import { composeAnswer, sendJson, writeAnswer } from './google-reply-writer.ts';
import {
  GoogleApiError,
  callsOf,
  checkAuth,
  checkShape,
  checkSignatures,
  checkTurnOrder,
  googleErrorMessages,
  holdsUserText,
  invalid,
  isObject,
  partsOf,
  responsesOf,
  roleOf,
} from './google-request-rules.ts';
import { ThoughtSignatureLedger } from './google-thought-signatures.ts';
import type { IssuedThoughtSignature } from './google-thought-signatures.ts';
import type {
  ModelScript,
  ProviderFake,
  Rejection,
  ScriptReply,
  ScriptToolResult,
  ScriptView,
} from './provider-fake.ts';

// The rules, the signatures and the reply writer have files of their own; what tests import from here stays here.
export { googleErrorMessages } from './google-request-rules.ts';
export { GOOGLE_DUMMY_THOUGHT_SIGNATURES, isGemini3OrLater } from './google-thought-signatures.ts';
export type { IssuedThoughtSignature } from './google-thought-signatures.ts';

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

export interface GoogleGenerateContentFake extends ProviderFake {
  /** Every thought signature minted so far, in order. */
  issuedSignatures(): IssuedThoughtSignature[];
  /** Whether `signature` is exactly one this fake minted. */
  isIssuedSignature(signature: string): boolean;
}

export async function startGoogleGenerateContentFake(
  script: ModelScript,
  options: GoogleGenerateContentFakeOptions = {},
): Promise<GoogleGenerateContentFake> {
  const rejections: Rejection[] = [];
  const ledger = new ThoughtSignatureLedger();
  const isKnownModel = options.isKnownModel ?? ((model: string) => /^(gemini|gemma)-/.test(model));
  let accepted = 0;

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
      checkAuth(req, url, options.apiKey);
      if (!isKnownModel(model))
        throw new GoogleApiError(404, 'NOT_FOUND', googleErrorMessages.modelNotFound(model, method));
      if (isMalformedJson(recorded, raw)) throw invalid(googleErrorMessages.invalidJson);
      const body = recorded.body;
      const contents = checkShape(body);
      checkTurnOrder(contents);
      checkSignatures(model, contents, ledger);

      const view = buildView(model, body, contents, accepted);
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
      const a = composeAnswer(model, body, contents, view, reply, ledger, options.functionCallIds);
      writeAnswer(res, method, url, model, a);
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
    issuedSignatures: () => [...ledger.issuedSignatures],
    isIssuedSignature: (signature: string) => ledger.isIssued(signature),
    close: server.close,
  };
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

/** What the script sees of a request that passed the rules; `requestIndex` counts the requests accepted before it. */
function buildView(model: string, body: any, contents: any[], requestIndex: number): ScriptView {
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
    requestIndex,
    tools,
    lastUserText,
    toolResults: functionResponseView(contents),
    reasoningRequested: body.generationConfig?.thinkingConfig?.includeThoughts === true,
    body,
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
