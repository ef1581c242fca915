import type { WindowItem } from '../domain/queries.ts';

/** Items kept across every conversation: about 20 MB of parsed history at 1 kB an item. */
const DEFAULT_BUDGET_ITEMS = 20_000;
/**
 * How long a window read from the database may be extended and served before it is read again.
 * The one change to stored items is the retention job blanking old tool data; its notice clears
 * every window, and this bounds what a process that missed the notice may still show the model.
 */
const DEFAULT_MAX_AGE_MS = 5 * 60_000;
/** Items kept of a conversation created in this process, until a read says how many a window takes. */
const NEW_CAPACITY = 1_001;

interface CachedWindow {
  /** The conversation's version these items are the history of. */
  version: number;
  /**
   * The latest items, oldest first, with their `seq`, from `start` on: commits append in place and
   * move `start` past the oldest, so that extending a window costs what the commit appended.
   */
  items: WindowItem[];
  start: number;
  /** Whether the items from `start` are the whole history (a shorter history than any window asked for). */
  whole: boolean;
  /** The most items kept: as many as the read asked for (a new conversation's: `NEW_CAPACITY`). */
  capacity: number;
  /** Whether `capacity` came from a read (a new conversation's is sized by its first `get`). */
  sized: boolean;
  /** When these items were last read from the database (extensions keep it). */
  readAt: number;
  /** The count of moves to the map's end when this window last moved there (see `use`). */
  movedAt: number;
}

/** What one committed transaction did to a conversation. */
export interface ConversationWrites {
  /** The conversation was created by the transaction (its whole history is what it appended). */
  inserted: number | null;
  /** The versions its bumps returned, in order. */
  versions: number[];
  appended: WindowItem[];
}

/**
 * The latest history of recently active conversations, parsed, keyed by the conversation's
 * version, per process. A turn's start and a resume read the window their first model step sends;
 * reading 200 rows and parsing their JSON again at every request was the largest cost of a round
 * trip on a long thread. The rule that makes it safe: every write that appends a conversation's
 * items and ends, pauses, starts or resumes a turn moves the conversation's version on in the
 * same transaction (conversation-version.ts). So a window is served only for the exact version it
 * was read or extended at, and:
 * - a transaction of this process that moved the version on by one extends the window of the
 *   version before with what it appended (deduplicated by `seq`: a read that raced the commit may
 *   already hold those items);
 * - any other change (items appended without a version bump, as a running turn's intermediate
 *   steps do, several bumps, a deletion) forgets the conversation;
 * - a change made by another process moves the version in the database: the stale window is
 *   never asked for again.
 */
export class HistoryWindows {
  /** In order of use, roughly: the least recently used first (see `use`). */
  private readonly windows = new Map<string, CachedWindow>();
  private items = 0;
  /** Moves of a window to the map's end so far. */
  private moves = 0;

  constructor(
    private readonly budgetItems = DEFAULT_BUDGET_ITEMS,
    private readonly maxAgeMs = DEFAULT_MAX_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The latest `count` items at `version`, oldest first, when known; undefined otherwise. */
  get(conversationId: string, version: number, count: number): WindowItem[] | undefined {
    const window = this.windows.get(conversationId);
    if (!window || window.version !== version) return undefined;
    if (this.now() - window.readAt > this.maxAgeMs) {
      this.drop(conversationId, window);
      return undefined;
    }
    if (window.items.length - window.start < count && !window.whole) return undefined;
    // A new conversation's window keeps from now on as many items as its agent's windows take.
    if (!window.sized) {
      window.sized = true;
      window.capacity = count;
      this.trim(window);
    }
    this.use(conversationId, window);
    return window.items.slice(Math.max(window.start, window.items.length - count));
  }

  /**
   * Keeps `items` (the latest `asked` items read at `version`, oldest first). A window already
   * kept at a later version stays: this read may have started before that commit.
   */
  remember(conversationId: string, version: number, items: readonly WindowItem[], asked: number): void {
    const current = this.windows.get(conversationId);
    if (current && current.version > version) return;
    this.store(conversationId, {
      version,
      items: [...items],
      start: 0,
      whole: items.length < asked,
      capacity: asked,
      sized: true,
      readAt: this.now(),
      movedAt: 0,
    });
  }

  /** Applies a committed transaction's writes of one conversation (see the class comment). */
  committed(conversationId: string, writes: ConversationWrites): void {
    const { inserted, versions, appended } = writes;
    if (inserted !== null && versions.length <= 1) {
      // A new conversation: its history is exactly what the transaction appended.
      const version = versions[0] ?? inserted;
      this.store(conversationId, {
        version,
        items: appended.slice(-NEW_CAPACITY),
        start: 0,
        whole: appended.length <= NEW_CAPACITY,
        capacity: NEW_CAPACITY,
        sized: false,
        readAt: this.now(),
        movedAt: 0,
      });
      return;
    }
    const window = this.windows.get(conversationId);
    if (!window) return;
    const [version] = versions;
    if (versions.length !== 1 || version === undefined || window.version !== version - 1) {
      if (versions.length > 0 || appended.length > 0) this.drop(conversationId, window);
      return;
    }
    window.version = version;
    const last = window.items[window.items.length - 1]?.seq ?? 0;
    for (const item of appended) {
      if (item.seq <= last) continue;
      window.items.push(item);
      this.items += 1;
    }
    // As many items as the read asked for: the window stays servable, and memory stays flat.
    this.trim(window);
    this.use(conversationId, window);
    this.evict();
  }

  /** Forgets a conversation's window (changed outside any tracked transaction, or deleted). */
  forget(conversationId: string): void {
    const window = this.windows.get(conversationId);
    if (window) this.drop(conversationId, window);
  }

  /** Forgets every window (stored items were rewritten: retention blanked tool data). */
  clear(): void {
    this.windows.clear();
    this.items = 0;
  }

  private store(conversationId: string, window: CachedWindow): void {
    const previous = this.windows.get(conversationId);
    if (previous) this.drop(conversationId, previous);
    if (window.items.length > this.budgetItems) return;
    window.movedAt = ++this.moves;
    this.windows.set(conversationId, window);
    this.items += window.items.length - window.start;
    this.evict();
  }

  /**
   * Marks the window most recently used, so that the least recently used are evicted first, by
   * moving it to the map's end: unless it moved there within the last half of the map's size in
   * moves, which leaves it among the newer half, far from eviction. A move at every use was a
   * delete and a set, and a map whose entries keep moving is rebuilt every so often, at a cost that
   * grows with its size: with thousands of conversations kept, Baton's own largest self time in
   * the floor profile (measured alone with 6,000 windows: 6 µs per read and commit, now 2).
   */
  private use(conversationId: string, window: CachedWindow): void {
    if (this.moves - window.movedAt < this.windows.size / 2) return;
    window.movedAt = ++this.moves;
    this.windows.delete(conversationId);
    this.windows.set(conversationId, window);
  }

  /** Keeps the window's latest `capacity` items; the array is copied once half of it is dead. */
  private trim(window: CachedWindow): void {
    const over = window.items.length - window.start - window.capacity;
    if (over > 0) {
      window.start += over;
      window.whole = false;
      this.items -= over;
    }
    if (window.start > window.capacity) {
      window.items = window.items.slice(window.start);
      window.start = 0;
    }
  }

  private evict(): void {
    // Nothing to evict at almost every commit: no iteration started over the map's entries.
    if (this.items <= this.budgetItems) return;
    for (const [id, oldest] of this.windows) {
      if (this.items <= this.budgetItems) break;
      this.drop(id, oldest);
    }
  }

  private drop(conversationId: string, window: CachedWindow): void {
    this.windows.delete(conversationId);
    this.items -= window.items.length - window.start;
  }
}
