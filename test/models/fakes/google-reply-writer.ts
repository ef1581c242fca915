import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { writeJson, writeSse } from './fake-http-server.ts';
import type { GoogleGenerateContentFakeOptions } from './google-generate-content-fake.ts';
import { callsOf } from './google-request-rules.ts';
import { callBinding, canonicalJson, isGemini3OrLater, textBinding } from './google-thought-signatures.ts';
import type { IssuedCall, ThoughtSignatureLedger } from './google-thought-signatures.ts';
import type { ScriptCall, ScriptReply, ScriptView } from './provider-fake.ts';

/**
 * How the Gemini fake turns a script's reply into Gemini's answer: the parts (with the ids and
 * thought signatures it mints) and usage, written as one `GenerateContentResponse`, as SSE chunks
 * (`alt=sse`, framed with `\r\n`), or as one JSON array of the same chunks.
 */

const estimateTokens = (chars: number) => Math.max(1, Math.ceil(chars / 4));

function mintId(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += alphabet[byte % alphabet.length];
  return id;
}

/** Builds the response's parts and usage, minting ids and signatures, and remembers what it issued. */
export function composeAnswer(
  model: string,
  body: any,
  contents: any[],
  view: ScriptView,
  reply: ScriptReply,
  ledger: ThoughtSignatureLedger,
  functionCallIds: GoogleGenerateContentFakeOptions['functionCallIds'],
) {
  const responseId = randomBytes(17).toString('base64url').slice(0, 23);
  const gemini3 = isGemini3OrLater(model);
  const requestHasIds = contents.some((content) => callsOf(content).some((part) => part.functionCall.id != null));
  const mode = functionCallIds ?? 'mirror';
  const withIds = mode === 'always' || (mode === 'mirror' && requestHasIds);
  const thoughtParts =
    view.reasoningRequested && reply.reasoning ? [{ text: reply.reasoning, thought: true as const }] : [];
  const text = reply.text ?? '';
  const calls: ScriptCall[] = reply.calls ?? [];
  const issuedCalls: IssuedCall[] = [];
  const callParts = calls.map((call, j) => {
    const argsKey = canonicalJson(call.arguments);
    const id = withIds ? mintId(8) : undefined;
    const signature =
      gemini3 && j === 0
        ? ledger.sign(callBinding(model, call.name, argsKey), {
            model,
            responseId,
            kind: 'functionCall',
            call: { name: call.name, args: call.arguments, ...(id != null ? { id } : {}) },
          })
        : undefined;
    issuedCalls.push({ name: call.name, argsKey, id, signature });
    return {
      functionCall: { ...(id != null ? { id } : {}), name: call.name, args: call.arguments },
      ...(signature != null ? { thoughtSignature: signature } : {}),
    };
  });
  let textSignature: string | undefined;
  if (gemini3 && calls.length === 0) {
    textSignature = ledger.sign(textBinding(model, text), { model, responseId, kind: 'text', text });
  }
  ledger.issuedResponses.push({ model, calls: issuedCalls });

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

export type Answer = ReturnType<typeof composeAnswer>;

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

/** Sends the answer in the form the route's `method` (`generateContent` or `streamGenerateContent`) and `alt` ask for. */
export function writeAnswer(res: ServerResponse, method: string, url: URL, model: string, a: Answer): void {
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
}

/** Google names the charset of its JSON answers. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  writeJson(res, status, body, { 'content-type': 'application/json; charset=UTF-8' });
}
