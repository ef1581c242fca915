import { BatonError } from '../../../domain/errors/baton-error.ts';
import type { ContentPart, JsonObject } from '../../../domain/records.ts';
import { assertOneOf } from '../../../resources/aip/union-check.ts';
import { SESSION_INPUT_MEMBERS, type SessionInputWire, type ToolResponseWire } from './session-wire.ts';

/** A request's inputs, sorted by what they do to the session. */
export interface SessionInputs {
  /** Text, events, images and blobs: one user message, in input order. */
  parts: ContentPart[];
  /** Variables to merge into the session, applied before anything runs. */
  variables: JsonObject | null;
  /** Tool responses with where each sits in the request (`inputs[0].toolResponses.toolResponses[1]`). */
  responses: { response: ToolResponseWire; param: string }[];
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Checks every input (exactly one member each) and sorts them; nothing is written here. */
export function readSessionInputs(inputs: readonly SessionInputWire[]): SessionInputs {
  const result: SessionInputs = { parts: [], variables: null, responses: [] };
  inputs.forEach((input, index) => {
    const path = `inputs[${index}]`;
    assertOneOf(input, SESSION_INPUT_MEMBERS, path, { required: true, name: 'input_type' });
    if (input.dtmf !== undefined || input.audio !== undefined) {
      throw new BatonError(
        'unsupported_input',
        `${path}: ${input.dtmf !== undefined ? 'dtmf' : 'audio'} input is not supported by Baton; send text, event, image, blob, variables or toolResponses.`,
        {
          param: `${path}.${input.dtmf !== undefined ? 'dtmf' : 'audio'}`,
        },
      );
    }
    if (input.text !== undefined) result.parts.push({ type: 'text', text: input.text });
    if (input.event !== undefined) result.parts.push({ type: 'text', text: `[event] ${input.event.event}` });
    for (const kind of ['image', 'blob'] as const) {
      const media = input[kind];
      if (!media) continue;
      if (!BASE64.test(media.data)) {
        throw new BatonError('invalid_media', `${path}.${kind}.data must be base64-encoded bytes.`, {
          param: `${path}.${kind}.data`,
        });
      }
      if (kind === 'image' && !media.mimeType.startsWith('image/')) {
        throw new BatonError(
          'invalid_media',
          `${path}.image.mimeType must be an image type such as image/png (got '${media.mimeType}'); send other files as blob.`,
          {
            param: `${path}.image.mimeType`,
          },
        );
      }
      result.parts.push(
        kind === 'image'
          ? { type: 'image', mediaType: media.mimeType, data: media.data }
          : { type: 'file', mediaType: media.mimeType, data: media.data, url: null, filename: null },
      );
    }
    if (input.variables !== undefined) result.variables = { ...result.variables, ...(input.variables as JsonObject) };
    input.toolResponses?.toolResponses.forEach((response, position) => {
      result.responses.push({ response, param: `${path}.toolResponses.toolResponses[${position}]` });
    });
  });
  return result;
}

/**
 * A tool response's payload as a tool result: `output` is the result, `error` a failure, and an
 * object with neither counts as the result as a whole (the CES convention).
 */
export function toolResultOf(response: Record<string, unknown>): { output: ContentPart[]; isError: boolean } {
  const isError = Object.hasOwn(response, 'error') && !Object.hasOwn(response, 'output');
  const value = isError ? response.error : Object.hasOwn(response, 'output') ? response.output : response;
  return {
    output: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value ?? null) }],
    isError,
  };
}
