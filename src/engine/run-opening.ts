import type { LedgerEntryRecord, NewItem, TurnRecord } from '../domain/records.ts';
import type { WindowItem } from '../domain/queries.ts';
import type { StepWrites, StepWritten } from './step-writes.ts';
import type { Repositories, Store } from '../store/store.ts';

/**
 * What opens a run of the agent loop: a new turn's start (its input), or a paused turn's resume
 * (the results). Written at once, the opening costs a transaction of its own before the model is
 * asked. A caller that waits for the outcome and watches no events (a plain JSON request) does
 * not need it stored that early: its opening stays unwritten and commits in the transaction of
 * the run's first step, one commit per request instead of two.
 *
 * It is written alone, earlier, whenever something needs it stored first:
 * - the first step is slow (a real model): after `settings.deferredOpeningMs`, so that other
 *   replicas soon see the turn running, and its lease holds;
 * - the step runs server calls, whose claims need the turn's row;
 * - this process reads the conversation meanwhile (another request, a cancel, a GET): readers in
 *   this process never see the conversation without it (`writeUnwrittenOpening`).
 *
 * A crash before it is written loses nothing that was acknowledged: the request has no answer
 * yet, and its retry finds the conversation as it was.
 */
/**
 * Writes an opening in `tx`, with the first step's writes folded in when `step` is given (then it
 * returns the turn as the step left it and the step's items; alone, the opening's turn). Throws
 * `OpeningRefusedError` when its guards fail: the conversation or the turn changed meanwhile.
 */
export type OpeningWriter = (tx: Repositories, step: StepWrites | null) => Promise<StepWritten>;

/** The opening's own writes were refused (`reason`: a lost compare-and-set, a call resolved meanwhile). */
export class OpeningRefusedError extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
    this.name = 'OpeningRefusedError';
  }
}

/** Runs `guard`, turning what it throws into the opening's refusal. */
export async function refusing<T>(guard: () => Promise<T>): Promise<T> {
  try {
    return await guard();
  } catch (error) {
    throw new OpeningRefusedError(error);
  }
}

export class RunOpening {
  private state: 'unwritten' | 'writing' | 'written' = 'unwritten';
  /** Settles when the transaction writing the opening ends, whatever its outcome. */
  private writing: Promise<void> = Promise.resolve();
  private refused: { error: unknown } | null = null;

  constructor(
    private readonly store: Pick<Store, 'transaction'>,
    /** The turn as the opening leaves it (`in_progress`, under a new lease). */
    readonly turn: TurnRecord,
    /** The items it appends (input or results), in order: the run's history has them before they are stored. */
    readonly items: readonly NewItem[],
    private readonly write: OpeningWriter,
    /** The history window as stored when the opening was made, if it was read then: the first step's. */
    private storedWindow?: readonly WindowItem[],
    /** A resume's: the turn's ledger rows as the results leave them. Null for a start. */
    readonly resumedCalls: readonly LedgerEntryRecord[] | null = null,
    /** The conversation's version the opening was made at: its history, read before it is written, is that version's. */
    readonly conversationVersion?: number,
  ) {}

  /** The stored history window read with the opening, once (later steps read their own). */
  takeStoredWindow(): readonly WindowItem[] | undefined {
    const window = this.storedWindow;
    this.storedWindow = undefined;
    return window;
  }

  get written(): boolean {
    return this.state === 'written';
  }

  /** What refused the opening's writes (another request changed the conversation first), if anything did. */
  get refusal(): { error: unknown } | null {
    return this.refused;
  }

  /** Writes the opening in a transaction of its own, unless it is written already. Throws what refused it. */
  async writeNow(): Promise<void> {
    await this.settled();
    if (this.state !== 'written') await this.writeOpening(null);
  }

  /**
   * Commits a step of the run: with the opening, in one transaction, while that is unwritten;
   * otherwise by `writeAlone` (the step of a run whose turn is stored). A refusal of the opening's
   * writes throws its reason, and stays: the run stops.
   */
  async commit(step: StepWrites, writeAlone: (tx: Repositories) => Promise<StepWritten>): Promise<StepWritten> {
    await this.settled();
    if (this.state === 'written') return this.store.transaction(writeAlone);
    return this.writeOpening(step);
  }

  private async writeOpening(step: StepWrites | null): Promise<StepWritten> {
    this.state = 'writing';
    let done = (): void => {};
    this.writing = new Promise<void>((resolve) => (done = resolve));
    try {
      // Awaited here only, so async stack traces run on through the caller (faces, engine).
      const written = await this.store.transaction((tx) => this.write(tx, step));
      this.state = 'written';
      return written;
    } catch (error) {
      // Rolled back: nothing of the opening is stored.
      this.state = 'unwritten';
      if (!(error instanceof OpeningRefusedError)) throw error;
      this.refused = { error: error.reason };
      throw error.reason;
    } finally {
      done();
    }
  }

  /** Waits while a transaction writing the opening runs; throws a refusal. */
  private async settled(): Promise<void> {
    while (this.state === 'writing') await this.writing;
    if (this.refused) throw this.refused.error;
  }
}

/**
 * Writes the unwritten opening of a run of this process on the conversation, if there is one, so
 * a reader in this process sees the conversation as the run has it. A refused opening is the
 * run's to report; the reader reads what is stored.
 */
export async function writeUnwrittenOpening(
  openings: ReadonlyMap<string, RunOpening>,
  conversationId: string,
): Promise<void> {
  const opening = openings.get(conversationId);
  if (!opening || opening.written) return;
  await opening.writeNow().catch(() => undefined);
}
