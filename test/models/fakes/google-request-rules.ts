import type { IncomingMessage } from 'node:http';
import {
  callBinding,
  canonicalJson,
  isDummy,
  isGemini3OrLater,
  textBinding,
  type IssuedResponse,
  type ThoughtSignatureLedger,
} from './google-thought-signatures.ts';

/**
 * The Gemini API's request rules, as the Gemini fake (`google-generate-content-fake.ts`, whose doc
 * comment lists them) enforces them: each check throws a `GoogleApiError` carrying Google's status,
 * envelope and wording, which the fake sends back as its refusal.
 */

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

export class GoogleApiError extends Error {
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

export const invalid = (message: string) => new GoogleApiError(400, 'INVALID_ARGUMENT', message);

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

export const isObject = (value: unknown): value is Record<string, any> =>
  value != null && typeof value === 'object' && !Array.isArray(value);

export const partsOf = (content: any): any[] => content.parts as any[];
export const callsOf = (content: any) => partsOf(content).filter((part) => isObject(part.functionCall));
export const responsesOf = (content: any) => partsOf(content).filter((part) => isObject(part.functionResponse));
export const roleOf = (content: any): 'user' | 'model' => (content.role === 'model' ? 'model' : 'user');
export const holdsUserText = (content: any) =>
  roleOf(content) === 'user' &&
  responsesOf(content).length === 0 &&
  partsOf(content).some((part) => typeof part.text === 'string');

/** The key from `x-goog-api-key` (or `?key=`): none at all, or not `apiKey` when one is configured, is refused. */
export function checkAuth(req: IncomingMessage, url: URL, apiKey: string | undefined): void {
  const header = req.headers['x-goog-api-key'];
  const key = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('key') ?? '';
  if (key === '') throw new GoogleApiError(403, 'PERMISSION_DENIED', googleErrorMessages.missingApiKey);
  if (apiKey != null && key !== apiKey) {
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

export function checkShape(body: any): any[] {
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

export function checkTurnOrder(contents: any[]): void {
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

export function checkSignatures(model: string, contents: any[], ledger: ThoughtSignatureLedger): void {
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
      if (typeof signature !== 'string' || binding == null || !ledger.verify(signature, binding)) {
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
    const candidates = ledger.issuedResponses.filter(sameCalls);
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
