import { BatonError } from '../../domain/errors/baton-error.ts';
import { newId } from '../../domain/ids.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { Engine } from '../../engine/index.ts';
import { itemView } from './item-views.ts';
import { compactionLine, encodeCompaction } from './response-compaction.ts';
import { toInputItems } from './response-request.ts';
import { responseView } from './response-views.ts';
import type { CompactRequestBody } from './response-wire.ts';

/** Everything about a response after it was created: read its input, cancel, delete, compact. */
export class ResponseLifecycle {
  constructor(private readonly engine: Engine) {}

  /** Cancels the response's turn if it is running or waiting for tool outputs; pending calls get synthetic results. */
  async cancel(appId: string, id: string, actor: string | null): Promise<JsonObject> {
    return responseView(await this.engine.responses.cancel(appId, id, actor));
  }

  /** Deletes a response; its conversation goes once no response of it is left (the engine's rule). */
  async delete(appId: string, id: string, actor: string | null): Promise<JsonObject> {
    await this.engine.responses.delete(appId, id, actor);
    return { id, object: 'response.deleted', deleted: true };
  }

  /** The items the request of a response added (its input), paged by item id. */
  async inputItems(
    appId: string,
    id: string,
    query: { limit?: number | undefined; order?: 'asc' | 'desc' | undefined; after?: string | undefined },
  ): Promise<JsonObject> {
    const { items, serverCalls } = await this.engine.responses.inputItems(appId, id);
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
    const context = await this.engine.responses.compactionContext(
      appId,
      body.previous_response_id ?? null,
      toInputItems(body.input),
    );
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
      created_at: Math.floor(this.engine.now().getTime() / 1000),
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
}
