import Database from 'better-sqlite3';
import { newId } from '../src/domain/ids.ts';

/**
 * Copies a thread that the engine built (conversation, turns, items, ledger entries) under new
 * ids, straight in SQLite. Lets the benchmarks have hundreds of threads with exactly N prior
 * turns, or 100,000 pending threads, without spending minutes re-running the engine for each:
 * every copy is row for row what the engine wrote for the template.
 */

const ID_PATTERN = /\b(thread|turn|item|msg|call)_[0-9A-Za-z]+/g;

type Row = Record<string, unknown>;

export class ThreadCloner {
  private readonly db: Database.Database;
  private readonly conversation: Row;
  private readonly turns: Row[];
  private readonly items: Row[];
  private readonly ledger: Row[];
  private readonly templateIds: Set<string>;
  private readonly inserts: Record<'conversations' | 'turns' | 'items' | 'ledger_entries', Database.Statement | null> =
    {
      conversations: null,
      turns: null,
      items: null,
      ledger_entries: null,
    };

  constructor(filename: string, templateThreadId: string) {
    this.db = new Database(filename);
    this.db.pragma('busy_timeout = 10000');
    const conversation = this.db.prepare('select * from conversations where id = ?').get(templateThreadId) as
      Row | undefined;
    if (!conversation) throw new Error(`no thread ${templateThreadId}`);
    this.conversation = conversation;
    this.turns = this.db.prepare('select * from turns where conversation_id = ?').all(templateThreadId) as Row[];
    // Without seq: the copy gets fresh sequence numbers, in the template's order.
    this.items = (
      this.db.prepare('select * from items where conversation_id = ? order by seq').all(templateThreadId) as Row[]
    ).map(({ seq: _seq, ...rest }) => rest);
    this.ledger = this.db
      .prepare('select * from ledger_entries where conversation_id = ?')
      .all(templateThreadId) as Row[];
    this.templateIds = new Set<string>();
    const collect = (value: unknown) => {
      if (typeof value === 'string') for (const match of value.matchAll(ID_PATTERN)) this.templateIds.add(match[0]);
    };
    for (const row of [this.conversation, ...this.turns, ...this.items, ...this.ledger])
      for (const value of Object.values(row)) collect(value);
  }

  private insert(table: keyof ThreadCloner['inserts'], row: Row): void {
    let statement = this.inserts[table];
    if (!statement) {
      const columns = Object.keys(row);
      statement = this.db.prepare(
        `insert into ${table} (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})`,
      );
      this.inserts[table] = statement;
    }
    statement.run(row);
  }

  private copyOnce(): string {
    const mapping = new Map<string, string>();
    for (const id of this.templateIds) mapping.set(id, newId(id.slice(0, id.indexOf('_'))));
    const remap = (row: Row): Row => {
      const copy: Row = {};
      for (const [column, value] of Object.entries(row))
        copy[column] = typeof value === 'string' ? value.replace(ID_PATTERN, (id) => mapping.get(id) ?? id) : value;
      return copy;
    };
    this.insert('conversations', remap(this.conversation));
    for (const row of this.turns) this.insert('turns', remap(row));
    for (const row of this.items) this.insert('items', remap(row));
    for (const row of this.ledger) this.insert('ledger_entries', remap(row));
    return mapping.get(this.conversation.id as string)!;
  }

  /** Makes `copies` copies, committing every `batch` copies; returns the new thread ids. */
  clone(copies: number, batch = 2_000): string[] {
    const ids: string[] = [];
    const run = this.db.transaction((count: number) => {
      for (let i = 0; i < count; i++) ids.push(this.copyOnce());
    });
    for (let done = 0; done < copies; done += batch) run(Math.min(batch, copies - done));
    return ids;
  }

  close(): void {
    this.db.close();
  }
}
