import type { NewItem, TurnRecord } from '../domain/records.ts';
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
    private readonly write: (tx: Repositories) => Promise<void>,
  ) {}

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
    if (this.state !== 'written') await this.transaction(async () => undefined);
  }

  /**
   * Runs `work` in a transaction that first writes the opening, if it is still unwritten: the run's
   * step commits through here. A refusal of the opening's writes throws, and stays: the run stops.
   */
  async transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T> {
    await this.settled();
    if (this.state === 'written') return this.store.transaction(work);
    this.state = 'writing';
    let done = (): void => {};
    this.writing = new Promise<void>((resolve) => (done = resolve));
    try {
      // Awaited here only, so async stack traces run on through the caller (faces, engine).
      const result = await this.store.transaction(async (tx) => {
        try {
          await this.write(tx);
        } catch (error) {
          this.refused = { error };
          throw error;
        }
        return work(tx);
      });
      this.state = 'written';
      return result;
    } catch (error) {
      // Rolled back: nothing of the opening is stored (a refusal stays recorded above).
      this.state = 'unwritten';
      throw error;
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
