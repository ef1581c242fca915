import { setImmediate } from 'node:timers';
import type { ControlledTransaction, Kysely } from 'kysely';
import type { Database } from './database-schema.ts';

/** Members one group takes at most: later ones start the next group. */
const MAX_MEMBERS = 64;

type Work<T> = (trx: Kysely<Database>) => Promise<T>;

/** How a member's turn in its group ended. */
type Outcome<T> = { kind: 'done'; value: T } | { kind: 'failed'; error: unknown } | { kind: 'next-group' };

/**
 * The SQLite store's transactions, committed in groups. A commit appends every page the
 * transaction changed to the WAL, one page per B-tree touched (a table and each of its indexes),
 * whatever the rows: at 10 clients, requests of the same app write the same pages (the newest
 * leaves of the tables and of their time-ordered indexes), and a commit costs about twice a
 * request's statements (issue 22's profiles). So the transactions that start while one is open
 * join it, and the group commits once the event loop has turned and none of them is running.
 *
 * What a caller sees does not change:
 * - the members run one at a time, in the order they came, each on the one connection (SQLite has
 *   one writer; Kysely's mutex made them wait for each other before, too);
 * - a member's promise settles after the commit: resolved once its writes are durable as any
 *   commit's, rejected with the commit's error if it failed (then nothing of the group is kept);
 * - a member that throws is undone alone: the first member of a group runs without a savepoint
 *   (a group of one is exactly the transaction it was: BEGIN IMMEDIATE … COMMIT, no statement
 *   more), and its failure rolls the transaction back before any other ran in it; each later one
 *   runs in a savepoint, rolled back on its failure, so the others' writes stay.
 * What a group shares is its commit: a commit that fails fails every member in it, which SQLite
 * does only for a full disk, a lost file, or a deferred foreign key left dangling by a member (the
 * engine's compare-and-set writes never leave one: a member that loses its race throws first).
 */
export class GroupCommit {
  private open: Group | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly maxMembers = MAX_MEMBERS,
  ) {}

  async run<T>(work: Work<T>): Promise<T> {
    for (;;) {
      const outcome = await this.joinable().add(work);
      if (outcome.kind === 'done') return outcome.value;
      if (outcome.kind === 'failed') throw outcome.error;
      // The group's first member failed before this one's turn: the transaction is gone, try the next.
    }
  }

  private joinable(): Group {
    if (this.open?.accepts(this.maxMembers)) return this.open;
    const group: Group = new Group(this.db, () => {
      if (this.open === group) this.open = null;
    });
    this.open = group;
    return group;
  }
}

class Group {
  private readonly transaction: Promise<ControlledTransaction<Database>>;
  /** Resolves once every member added so far has had its turn (it never rejects). */
  private tail: Promise<unknown>;
  private members = 0;
  private state: 'open' | 'closing' | 'ended' = 'open';
  private readonly committed: Promise<void>;
  /** Settles `committed`: resolved without a failure, rejected with its error (whatever was thrown, `undefined` too). */
  private settleCommit!: (failure?: { error: unknown }) => void;

  constructor(
    db: Kysely<Database>,
    private readonly onClosing: () => void,
  ) {
    this.transaction = db.startTransaction().execute();
    this.tail = this.transaction.catch(() => {});
    this.committed = new Promise<void>((resolve, reject) => {
      this.settleCommit = (failure) => (failure ? reject(failure.error) : resolve());
    });
    // Awaited only by members that are done; a group rolled back may have none.
    this.committed.catch(() => {});
    // The commit waits for the event loop to turn: what arrives in the meantime joins.
    setImmediate(() => void this.close());
  }

  accepts(maxMembers: number): boolean {
    return this.state === 'open' && this.members < maxMembers;
  }

  /**
   * Runs `work` once the members before it had their turn. Awaited all the way from the caller
   * (no `then` callbacks), so an error's async stack still reaches the code that asked for the
   * transaction.
   */
  async add<T>(work: Work<T>): Promise<Outcome<T>> {
    const index = this.members++;
    const previous = this.tail;
    let turnOver!: () => void;
    this.tail = new Promise<void>((resolve) => (turnOver = resolve));
    let outcome: Outcome<T>;
    try {
      await previous;
      outcome = await this.take(index, work);
    } finally {
      turnOver();
    }
    if (outcome.kind !== 'done') return outcome;
    try {
      await this.committed;
      return outcome;
    } catch (error) {
      return { kind: 'failed', error };
    }
  }

  private async take<T>(index: number, work: Work<T>): Promise<Outcome<T>> {
    let trx: ControlledTransaction<Database>;
    try {
      trx = await this.transaction;
    } catch (error) {
      // BEGIN failed (the lock was not had within busy_timeout): as each member's own BEGIN would have.
      this.end();
      return { kind: 'failed', error };
    }
    if (this.state === 'ended') return { kind: 'next-group' };
    return index === 0 ? this.takeFirst(trx, work) : this.takeInSavepoint(trx, index, work);
  }

  private async takeFirst<T>(trx: ControlledTransaction<Database>, work: Work<T>): Promise<Outcome<T>> {
    try {
      return { kind: 'done', value: await work(trx) };
    } catch (error) {
      await this.rollBack(trx, error);
      return { kind: 'failed', error };
    }
  }

  private async takeInSavepoint<T>(
    trx: ControlledTransaction<Database>,
    index: number,
    work: Work<T>,
  ): Promise<Outcome<T>> {
    const name = `member_${index}`;
    let member: ControlledTransaction<Database, [string]>;
    try {
      member = await trx.savepoint(name).execute();
    } catch (error) {
      await this.rollBack(trx, error);
      return { kind: 'failed', error };
    }
    try {
      const value = await work(member);
      await member.releaseSavepoint(name).execute();
      return { kind: 'done', value };
    } catch (error) {
      try {
        await member.rollbackToSavepoint(name).execute();
        await member.releaseSavepoint(name).execute();
      } catch (undoError) {
        // The member's writes cannot be told apart from the others' any more: none are kept.
        await this.rollBack(trx, undoError);
      }
      return { kind: 'failed', error };
    }
  }

  private async close(): Promise<void> {
    if (this.state === 'open') this.state = 'closing';
    this.onClosing();
    await this.tail;
    if (this.state === 'ended') return;
    this.end();
    const trx = await this.transaction;
    try {
      await trx.commit().execute();
      this.settleCommit();
    } catch (error) {
      try {
        await trx.rollback().execute();
      } catch {
        // The commit's error is the one to report; the connection is released either way.
      }
      this.settleCommit({ error });
    }
  }

  private async rollBack(trx: ControlledTransaction<Database>, error: unknown): Promise<void> {
    this.end();
    try {
      await trx.rollback().execute();
    } catch {
      // The member's own error is the one to report; the connection is released either way.
    }
    this.settleCommit({ error });
  }

  private end(): void {
    this.state = 'ended';
    this.onClosing();
  }
}
