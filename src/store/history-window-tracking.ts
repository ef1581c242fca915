import type { Repositories } from './store.ts';
import type { ConversationWrites, HistoryWindows } from './history-windows.ts';
import type { Signals } from './signals.ts';

type Tracked = Pick<Repositories, 'items' | 'conversations' | 'lifecycle'>;

/**
 * What a transaction did to conversations' histories, applied to the process's `HistoryWindows`
 * once it commits (a rollback applies nothing).
 */
export class HistoryWrites {
  private readonly byConversation = new Map<string, ConversationWrites & { forget: boolean }>();
  private rewritten = false;

  private of(conversationId: string) {
    let writes = this.byConversation.get(conversationId);
    if (!writes) {
      writes = { inserted: null, versions: [], appended: [], forget: false };
      this.byConversation.set(conversationId, writes);
    }
    return writes;
  }

  /** The repositories of the transaction, noting each write that changes a history or a version. */
  track<R extends Tracked>(repositories: R): R {
    const { items, conversations, lifecycle } = repositories;
    return {
      ...repositories,
      items: {
        ...items,
        append: async (newItems) => {
          const appended = await items.append(newItems);
          for (const item of appended)
            this.of(item.conversationId).appended.push({ seq: item.seq, groupId: item.groupId, payload: item.payload });
          return appended;
        },
      },
      conversations: {
        ...conversations,
        insert: async (conversation) => {
          await conversations.insert(conversation);
          this.of(conversation.id).inserted = conversation.version;
        },
        compareAndSet: async (id, expectedVersion, patch) => {
          const updated = await conversations.compareAndSet(id, expectedVersion, patch);
          if (updated) this.of(id).versions.push(updated.version);
          return updated;
        },
        bump: async (appId, id, patch) => {
          const updated = await conversations.bump(appId, id, patch);
          if (updated) this.of(id).versions.push(updated.version);
          return updated;
        },
        delete: async (appId, id) => {
          this.of(id).forget = true;
          return conversations.delete(appId, id);
        },
      },
      lifecycle: {
        ...lifecycle,
        purgeConversation: async (appId, id) => {
          this.of(id).forget = true;
          return lifecycle.purgeConversation(appId, id);
        },
        removeToolData: async (...args) => {
          const removed = await lifecycle.removeToolData(...args);
          if (removed.items > 0) this.rewritten = true;
          return removed;
        },
      },
    };
  }

  /** The transaction committed: every process forgets rewritten items, this one updates its windows. */
  apply(windows: HistoryWindows, signals: Signals): void {
    if (this.rewritten) {
      windows.clear();
      signals.publish('history', '*');
    }
    for (const [conversationId, writes] of this.byConversation) {
      if (writes.forget) windows.forget(conversationId);
      else windows.committed(conversationId, writes);
    }
  }
}

/**
 * The store's own repositories (writes outside any transaction): each is its own transaction,
 * tracked the same way; `listWindow` given the conversation's version serves a kept window or
 * keeps what it reads. Every process forgets every window when retention rewrites items anywhere.
 */
export function withHistoryWindows<R extends Tracked>(repositories: R, windows: HistoryWindows, signals: Signals): R {
  signals.subscribe('history', () => windows.clear());
  const committed = async <T>(write: (tracked: Tracked) => Promise<T>): Promise<T> => {
    const writes = new HistoryWrites();
    const result = await write(writes.track(repositories));
    writes.apply(windows, signals);
    return result;
  };
  const { items, conversations, lifecycle } = repositories;
  return {
    ...repositories,
    items: {
      ...items,
      append: (newItems) => committed((tracked) => tracked.items.append(newItems)),
      listWindow: async (conversationId, limit, atVersion) => {
        if (atVersion === undefined) return items.listWindow(conversationId, limit);
        const kept = windows.get(conversationId, atVersion, limit);
        if (kept) return kept;
        const read = await items.listWindow(conversationId, limit);
        windows.remember(conversationId, atVersion, read, limit);
        return read;
      },
    },
    conversations: {
      ...conversations,
      insert: (conversation) => committed((tracked) => tracked.conversations.insert(conversation)),
      compareAndSet: (id, expected, patch) =>
        committed((tracked) => tracked.conversations.compareAndSet(id, expected, patch)),
      bump: (appId, id, patch) => committed((tracked) => tracked.conversations.bump(appId, id, patch)),
      delete: (appId, id) => committed((tracked) => tracked.conversations.delete(appId, id)),
    },
    lifecycle: {
      ...lifecycle,
      purgeConversation: (appId, id) => committed((tracked) => tracked.lifecycle.purgeConversation(appId, id)),
      removeToolData: (...args) => committed((tracked) => tracked.lifecycle.removeToolData(...args)),
    },
  };
}
