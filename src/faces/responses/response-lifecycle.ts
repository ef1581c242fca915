import type { Engine } from '../../engine/index.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { InputItem } from '../../engine/index.ts';
import { newId } from '../../domain/ids.ts';
import type { ItemRecord, JsonObject } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import { compactionLine, encodeCompaction } from './response-compaction.ts';
import { resolveInput, toInputItems } from './response-request.ts';
import { responseNotFound, type ResponseService } from './response-service.ts';
import { isHiddenItem, itemView } from './item-views.ts';
import { loadResponseState, responseView } from './response-views.ts';
import { loadServerCalls } from './server-call-state.ts';
import type { CompactRequestBody } from './response-wire.ts';

/** Past the WebSocket connection limit (60 min) with a margin. */
const ABANDONED_AFTER_SECONDS = 65 * 60;

/** Everything about a response after it was created: read its input, cancel, delete, compact. */
export class ResponseLifecycle {
  constructor(
    private readonly store: Store,
    private readonly engine: Engine,
    private readonly service: ResponseService,
  ) {}

  private async stored(appId: string, id: string) {
    const record = await this.store.responses.get(appId, id);
    if (!record || !record.stored) throw responseNotFound(id);
    return record;
  }

  /** Cancels the response's turn if it is running or waiting for tool outputs; pending calls get synthetic results. */
  async cancel(appId: string, id: string, actor: string | null): Promise<JsonObject> {
    const record = await this.stored(appId, id);
    const state = await loadResponseState(this.store, record);
    const active =
      !state.continuation && (state.turn.status === 'in_progress' || state.turn.status === 'requires_action');
    if (!active) {
      throw new BatonError(
        'response_not_cancellable',
        `Response '${id}' cannot be cancelled: it is ${String(responseView(state)['status'])}, with nothing running or waiting for tool outputs.`,
      );
    }
    await this.engine.cancel(appId, record.conversationId, actor);
    return responseView(await loadResponseState(this.store, record));
  }

  /**
   * Deletes a response: it can no longer be read or continued. A turn it left running or waiting
   * is cancelled first. When no response of the conversation is left, the conversation goes too.
   */
  async delete(appId: string, id: string, actor: string | null): Promise<JsonObject> {
    const record = await this.stored(appId, id);
    const latest = await this.store.responses.latestInConversation(record.conversationId);
    if (latest?.id === id) {
      const state = await this.engine.getConversationState(appId, record.conversationId);
      if (state.activeTurn?.id === record.turnId)
        await this.engine.cancel(appId, record.conversationId, actor).catch(() => {});
    }
    await this.store.responses.hide(appId, id);
    if ((await this.store.responses.countStoredInConversation(record.conversationId)) === 0) {
      await this.engine.deleteConversation(appId, record.conversationId, actor);
    }
    return { id, object: 'response.deleted', deleted: true };
  }

  /**
   * Purges the conversations of `store: false` responses a crash left behind. A WebSocket
   * connection lives at most 60 minutes, so nothing older can still be in use.
   */
  async purgeAbandoned(olderThanSeconds = ABANDONED_AFTER_SECONDS, limit = 100): Promise<number> {
    const before = new Date(this.engine.context.clock.now().getTime() - olderThanSeconds * 1000).toISOString();
    let purged = 0;
    for (const record of await this.store.responses.listUnstoredBefore(before, limit)) {
      await this.engine.deleteConversation(record.appId, record.conversationId, 'baton:sweeper').catch(() => {});
      purged += 1;
    }
    return purged;
  }

  /** The items the request of a response added (its input), paged by item id. */
  async inputItems(
    appId: string,
    id: string,
    query: { limit?: number | undefined; order?: 'asc' | 'desc' | undefined; after?: string | undefined },
  ): Promise<JsonObject> {
    const record = await this.stored(appId, id);
    const span = record.inputLastSeq - record.inputFirstSeq + 1;
    const items = (await this.store.items.listAfterSeq(record.conversationId, record.inputFirstSeq - 1, span)).filter(
      (item) => !isHiddenItem(item),
    );
    // A resumed turn's input holds the outputs of the server calls it made too (`baton:tool_result`).
    const serverCalls = await loadServerCalls(this.store, items);
    const views = items.map((item) => itemView(item, 'completed', serverCalls));
    if ((query.order ?? 'desc') === 'desc') views.reverse();
    let start = 0;
    if (query.after) {
      const index = views.findIndex((view) => view['id'] === query.after);
      if (index === -1)
        throw new BatonError('invalid_cursor', `after '${query.after}' is not an input item of response '${id}'.`, {
          param: 'after',
        });
      start = index + 1;
    }
    const limit = query.limit ?? 20;
    const data = views.slice(start, start + limit);
    return {
      object: 'list',
      data,
      first_id: (data[0]?.['id'] as string | undefined) ?? null,
      last_id: (data[data.length - 1]?.['id'] as string | undefined) ?? null,
      has_more: start + limit < views.length,
    };
  }

  /**
   * Compacts a context (a previous response's conversation and/or `input`): user messages are
   * kept, the rest becomes one `compaction` item. Nothing is stored.
   */
  async compact(appId: string, body: CompactRequestBody): Promise<JsonObject> {
    const context: InputItem[] = [];
    if (body.previous_response_id) {
      const previous = await this.service.findContinuable(appId, body.previous_response_id);
      const next = await this.store.responses.nextInConversation(previous.conversationId, previous.inputLastSeq);
      for (const item of await this.historyUpTo(
        previous.conversationId,
        next ? next.inputFirstSeq - 1 : Number.MAX_SAFE_INTEGER,
      ))
        context.push(toInputItem(item));
    }
    context.push(...(await resolveInput(this.store, appId, toInputItems(body.input))).items);
    if (context.length === 0)
      throw new BatonError('empty_input', 'Nothing to compact: send input items or a previous_response_id.', {
        param: 'input',
      });
    const output: JsonObject[] = [];
    const lines: string[] = [];
    let characters = 0;
    for (const item of context) {
      characters += JSON.stringify(item).length;
      if (item.type === 'message' && item.role === 'user') {
        output.push(itemView({ groupId: newId('msg'), payload: item }));
      } else {
        const line = compactionLine(item);
        if (line !== null) lines.push(line);
      }
    }
    output.push({
      type: 'compaction',
      id: newId('cmp'),
      encrypted_content: encodeCompaction(lines),
      created_by: 'baton',
    });
    const inputTokens = Math.ceil(characters / 4);
    return {
      id: newId('resp'),
      object: 'response.compaction',
      created_at: Math.floor(this.engine.context.clock.now().getTime() / 1000),
      output,
      usage: {
        input_tokens: inputTokens,
        output_tokens: 0,
        total_tokens: inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    };
  }

  private async historyUpTo(conversationId: string, uptoSeq: number): Promise<ItemRecord[]> {
    const items: ItemRecord[] = [];
    for (let after = 0; ;) {
      const page = await this.store.items.listAfterSeq(conversationId, after, 500);
      const kept = page.filter((item) => item.seq <= uptoSeq && !isHiddenItem(item));
      items.push(...kept);
      if (page.length < 500 || page.some((item) => item.seq > uptoSeq)) return items;
      after = page[page.length - 1]?.seq ?? after;
    }
  }
}

function toInputItem(item: ItemRecord): InputItem {
  const payload = item.payload;
  if (payload.type === 'function_call')
    return { type: 'function_call', callId: payload.callId, name: payload.name, arguments: payload.arguments };
  if (payload.type === 'function_call_output')
    return { type: 'function_call_output', callId: payload.callId, output: payload.output, isError: payload.isError };
  return payload;
}
