import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ContentPart } from '../../domain/records.ts';
import type { InputItem } from '../../engine/index.ts';
import { approvalIdsIn } from './approval-notice.ts';
import { invalidField, parseField } from './chat-fields.ts';
import {
  assistantMessageWire,
  systemMessageWire,
  toolMessageWire,
  userMessageWire,
  type AssistantMessageWire,
  type MessageWire,
  type UserPartWire,
} from './chat-wire.ts';

/** The client's transcript in engine items, each with where it sits in the request. */
export interface ChatTranscript {
  items: InputItem[];
  params: string[];
  /** Approvals that the last assistant message reports as waiting (Baton's own notice, sent back). */
  awaitedApprovalIds: string[];
}

const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)(?:;[^,]*)?;base64,([A-Za-z0-9+/]*={0,2})$/i;

/** Parses `messages` and translates them, checking the order OpenAI requires of tool messages. */
export function toTranscript(raw: readonly unknown[]): ChatTranscript {
  const messages = raw.map(parseMessage);
  checkToolMessageOrder(messages);
  const items: InputItem[] = [];
  const params: string[] = [];
  const add = (item: InputItem, param: string) => {
    items.push(item);
    params.push(param);
  };
  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        add({ type: 'message', role: 'system', content: textParts(message.content) }, param);
        return;
      case 'user':
        add({ type: 'message', role: 'user', content: userContent(message.content, param) }, param);
        return;
      case 'assistant': {
        const text = assistantText(message);
        if (text !== '') add({ type: 'message', role: 'assistant', content: [{ type: 'text', text }] }, param);
        (message.tool_calls ?? []).forEach((call, position) =>
          add(
            { type: 'function_call', callId: call.id, name: call.function.name, arguments: call.function.arguments },
            `${param}.tool_calls[${position}]`,
          ),
        );
        return;
      }
      case 'tool':
        add(
          {
            type: 'function_call_output',
            callId: message.tool_call_id,
            output: textParts(message.content),
            isError: false,
          },
          param,
        );
    }
  });
  return { items, params, awaitedApprovalIds: awaitedApprovals(messages) };
}

function parseMessage(raw: unknown, index: number): MessageWire {
  const at = `messages[${index}]`;
  const role = typeof raw === 'object' && raw !== null ? (raw as { role?: unknown }).role : undefined;
  switch (role) {
    case 'system':
    case 'developer':
      return parseField(systemMessageWire, raw, at);
    case 'user':
      return parseField(userMessageWire, raw, at);
    case 'assistant':
      return parseField(assistantMessageWire, raw, at);
    case 'tool':
      return parseField(toolMessageWire, raw, at);
    case 'function':
      throw new BatonError(
        'unsupported_field',
        `${at}.role 'function' is the deprecated form of tool results: send {"role": "tool", "tool_call_id", "content"} instead.`,
        { param: `${at}.role` },
      );
    default:
      throw new BatonError(
        'invalid_request',
        `${at}.role must be one of system, developer, user, assistant or tool${role === undefined ? '' : `, not ${JSON.stringify(role)}`}.`,
        { param: `${at}.role` },
      );
  }
}

/**
 * OpenAI's rule, so that a transcript Baton accepts is one any provider accepts: an assistant
 * message with tool_calls is followed by one tool message per call, and a tool message answers a
 * call of the assistant message right before its run of tool messages.
 */
function checkToolMessageOrder(messages: readonly MessageWire[]): void {
  const seenCallIds = new Map<string, string>();
  let open: { index: number; calls: Map<string, number>; answered: Set<string> } | null = null;
  const closeOpen = (before: number | null) => {
    if (!open) return;
    for (const [id, position] of open.calls) {
      if (open.answered.has(id)) continue;
      const where = `messages[${open.index}].tool_calls[${position}]`;
      throw new BatonError(
        'tool_call_without_output',
        `${where} (id '${id}') has no tool message answering it` +
          `${before === null ? ' at the end of messages' : ` before messages[${before}]`}: an assistant message ` +
          `with tool_calls must be followed by one tool message per call, with that call's id as tool_call_id.`,
        { param: where, data: { call_id: id } },
      );
    }
    open = null;
  };
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      const param = `messages[${index}].tool_call_id`;
      const id = message.tool_call_id;
      if (open?.answered.has(id)) {
        throw new BatonError(
          'duplicate_tool_output',
          `${param} '${id}' answers a call already answered by an earlier tool message: send exactly one tool message per call.`,
          { param },
        );
      }
      if (!open?.calls.has(id)) {
        throw new BatonError(
          'tool_output_without_call',
          `${param} '${id}' matches no tool_calls[].id of the assistant message before it. A tool message ` +
            `answers a call of the assistant message right before its tool messages: send that assistant ` +
            `message with its tool_calls first, or fix the id.`,
          { param, data: { call_id: id } },
        );
      }
      open.answered.add(id);
      return;
    }
    closeOpen(index);
    if (message.role !== 'assistant' || !message.tool_calls?.length) return;
    const calls = new Map<string, number>();
    message.tool_calls.forEach((call, position) => {
      const param = `messages[${index}].tool_calls[${position}].id`;
      const earlier = seenCallIds.get(call.id);
      if (earlier !== undefined || calls.has(call.id)) {
        throw new BatonError(
          'duplicate_call_id',
          `${param} '${call.id}' is also the id of ${earlier ?? `messages[${index}].tool_calls[${calls.get(call.id)}]`}: every tool call needs its own id.`,
          { param },
        );
      }
      calls.set(call.id, position);
      seenCallIds.set(call.id, `messages[${index}].tool_calls[${position}]`);
    });
    open = { index, calls, answered: new Set() };
  });
  closeOpen(null);
}

function textParts(content: string | readonly { text: string }[]): ContentPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part) => ({ type: 'text', text: part.text }));
}

function assistantText(message: AssistantMessageWire): string {
  const content = message.content;
  const parts =
    typeof content === 'string'
      ? [content]
      : (content ?? []).map((part) => (part.type === 'text' ? part.text : part.refusal));
  if (message.refusal) parts.push(message.refusal);
  return parts.filter((part) => part !== '').join('\n');
}

function userContent(content: string | readonly UserPartWire[], param: string): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part, index) => userPart(part, `${param}.content[${index}]`));
}

function userPart(part: UserPartWire, param: string): ContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url': {
      const url = part.image_url.url;
      const data = DATA_URL.exec(url);
      if (data) return { type: 'image', mediaType: (data[1] ?? '').toLowerCase(), data: data[2] ?? '' };
      if (/^https?:\/\//i.test(url)) return { type: 'file', mediaType: 'image/*', data: null, url, filename: null };
      throw invalidField(
        `${param}.image_url.url`,
        `${param}.image_url.url must be a base64 data URL (data:image/png;base64,…) or an http(s) URL.`,
      );
    }
    case 'input_audio':
      throw new BatonError(
        'unsupported_input',
        `${param} is audio, which Baton does not take: send text, images (image_url) or files.`,
        { param },
      );
    case 'file': {
      const { file_data: fileData, file_id: fileId, filename } = part.file;
      if (fileId !== undefined) {
        throw invalidField(
          `${param}.file.file_id`,
          `${param}.file.file_id is not supported: Baton has no Files API. Send the content inline as file.file_data (a base64 data URL).`,
          'unsupported_file_id',
        );
      }
      const data = fileData === undefined ? null : DATA_URL.exec(fileData);
      if (!data) {
        throw invalidField(
          `${param}.file.file_data`,
          `${param}.file.file_data must be a base64 data URL (data:application/pdf;base64,…).`,
        );
      }
      return {
        type: 'file',
        mediaType: (data[1] ?? '').toLowerCase(),
        data: data[2] ?? '',
        url: null,
        filename: filename ?? null,
      };
    }
  }
}

/** The approvals named by the last assistant message, when only tool, user or system messages follow it. */
function awaitedApprovals(messages: readonly MessageWire[]): string[] {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'assistant') return approvalIdsIn(assistantText(message));
  }
  return [];
}
