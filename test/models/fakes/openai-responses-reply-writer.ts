import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { writeJson, writeSse } from './fake-http-server.ts';
import { chunkText, estimateTokens } from './fake-reply-text.ts';
import { randomAlphanumeric } from './openai-platform.ts';
import { isOpenAIReasoningModel } from './openai-responses-request-rules.ts';
import type { Json, OutputRecord } from './openai-responses-request-rules.ts';
import type { ScriptReply } from './provider-fake.ts';

/**
 * How the Responses fake turns a script's reply into a response: its output items (remembered, so
 * later requests can reference them), usage and response object, sent as the documented SSE event
 * sequence or as one JSON response.
 */

/** OpenAI-style ids: `rs_`/`msg_`/`fc_`/`resp_` + 50 hex characters, `call_` + 24 alphanumerics. */
export function hexId(prefix: string): string {
  return prefix + randomBytes(25).toString('hex');
}

function callId(): string {
  return 'call_' + randomAlphanumeric(24);
}

/** Builds the response's output items from the script's reply, and remembers them. */
export function buildOutput(
  body: Json,
  reply: ScriptReply,
  store: boolean,
  outputs: Map<string, OutputRecord>,
  mintEncryptedContent: (itemId: string, reasoning: string) => string,
): Json[] {
  const items: Json[] = [];
  const reasoningModel = isOpenAIReasoningModel(body.model);
  const includeEncrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
  const summaryRequested = body.reasoning?.summary != null;
  if (reasoningModel && reply.reasoning != null) {
    const id = hexId('rs_');
    const item: Json = {
      id,
      type: 'reasoning',
      summary: summaryRequested && reply.reasoning !== '' ? [{ type: 'summary_text', text: reply.reasoning }] : [],
    };
    if (includeEncrypted) item.encrypted_content = mintEncryptedContent(id, reply.reasoning);
    items.push(item);
  }
  if (reply.text != null && reply.text !== '') {
    items.push({
      id: hexId('msg_'),
      type: 'message',
      status: 'completed',
      content: [{ type: 'output_text', annotations: [], logprobs: [], text: reply.text }],
      role: 'assistant',
    });
  }
  for (const call of reply.calls ?? []) {
    items.push({
      id: hexId('fc_'),
      type: 'function_call',
      status: 'completed',
      arguments: JSON.stringify(call.arguments),
      call_id: callId(),
      name: call.name,
    });
  }
  items.forEach((item, i) => {
    const previous = items[i - 1];
    const next = items[i + 1];
    outputs.set(item.id, {
      id: item.id,
      type: item.type,
      item,
      callId: item.call_id,
      next: next != null ? { id: next.id, type: next.type, callId: next.call_id } : undefined,
      precedingReasoningId: previous?.type === 'reasoning' ? previous.id : undefined,
      stored: store,
    });
  });
  return items;
}

export function usageOf(body: Json, reply: ScriptReply, items: Json[]): Json {
  const inputTokens =
    reply.usage?.inputTokens ??
    Math.max(1, estimateTokens(JSON.stringify([body.instructions ?? '', body.input, body.tools ?? []])));
  const reasoningItem = items.find((item) => item.type === 'reasoning');
  const reasoningTokens =
    reply.usage?.reasoningTokens ?? (reasoningItem != null ? estimateTokens(reply.reasoning ?? '') : 0);
  const visible =
    estimateTokens(reply.text ?? '') +
    (reply.calls ?? []).reduce((n, c) => n + estimateTokens(JSON.stringify(c.arguments)) + 5, 0);
  const outputTokens = reply.usage?.outputTokens ?? visible + reasoningTokens;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: reply.usage?.cachedInputTokens ?? 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + outputTokens,
  };
}

export function responseObject(body: Json, id: string, createdAt: number, store: boolean): Json {
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: body.model,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: isOpenAIReasoningModel(body.model)
      ? { effort: body.reasoning?.effort ?? 'medium', summary: body.reasoning?.summary ?? null }
      : { effort: null, summary: null },
    safety_identifier: body.safety_identifier ?? null,
    service_tier: body.service_tier ?? 'auto',
    store,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: null,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

/** The documented event sequence for the given output items. */
function streamEvents(base: Json, items: Json[], completed: Json, chunkSize: number): Json[] {
  const events: Json[] = [];
  events.push({ type: 'response.created', response: base });
  events.push({ type: 'response.in_progress', response: base });
  items.forEach((item, outputIndex) => {
    if (item.type === 'reasoning') {
      const added: Json = { id: item.id, type: 'reasoning', summary: [] };
      if (item.encrypted_content != null) added.encrypted_content = item.encrypted_content;
      events.push({ type: 'response.output_item.added', output_index: outputIndex, item: added });
      (item.summary as Json[]).forEach((part, summaryIndex) => {
        const ids = { item_id: item.id, output_index: outputIndex, summary_index: summaryIndex };
        events.push({
          type: 'response.reasoning_summary_part.added',
          ...ids,
          part: { type: 'summary_text', text: '' },
        });
        for (const delta of chunkText(part.text, chunkSize)) {
          events.push({ type: 'response.reasoning_summary_text.delta', ...ids, delta });
        }
        events.push({ type: 'response.reasoning_summary_text.done', ...ids, text: part.text });
        events.push({
          type: 'response.reasoning_summary_part.done',
          ...ids,
          part: { type: 'summary_text', text: part.text },
        });
      });
    } else if (item.type === 'message') {
      const text = item.content[0].text as string;
      const ids = { item_id: item.id, output_index: outputIndex, content_index: 0 };
      events.push({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { id: item.id, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      });
      events.push({
        type: 'response.content_part.added',
        ...ids,
        part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
      });
      for (const delta of chunkText(text, chunkSize)) {
        events.push({ type: 'response.output_text.delta', ...ids, delta, logprobs: [] });
      }
      events.push({ type: 'response.output_text.done', ...ids, text, logprobs: [] });
      events.push({
        type: 'response.content_part.done',
        ...ids,
        part: { type: 'output_text', annotations: [], logprobs: [], text },
      });
    } else {
      const ids = { item_id: item.id, output_index: outputIndex };
      events.push({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      for (const delta of chunkText(item.arguments, chunkSize)) {
        events.push({ type: 'response.function_call_arguments.delta', ...ids, delta });
      }
      events.push({ type: 'response.function_call_arguments.done', ...ids, arguments: item.arguments });
    }
    events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
  });
  events.push({ type: 'response.completed', response: completed });
  return events.map((event, sequence) => ({ ...event, sequence_number: sequence }));
}

/** Sends the completed response: as its stream of events when the request streams, otherwise as JSON. */
export function writeResponse(
  res: ServerResponse,
  body: Json,
  base: Json,
  items: Json[],
  completed: Json,
  chunkSize: number,
): void {
  const headers = { 'x-request-id': 'req_' + randomBytes(16).toString('hex') };
  if (body.stream === true) {
    writeSse(
      res,
      { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
      streamEvents(base, items, completed, chunkSize).map((event) => ({
        event: event.type,
        data: JSON.stringify(event),
      })),
    );
  } else {
    writeJson(res, 200, completed, { ...headers, 'content-type': 'application/json' });
  }
}
