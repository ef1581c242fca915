/** A held place in a `PerAppCounter`. Releasing twice is harmless, so every exit path may call it. */
export interface CountedSlot {
  release(): void;
}

/**
 * Counts something each app holds (running turns, open streams) per app and in all. The callers
 * own their limits and their refusals; this only keeps the two counts honest, including when a
 * slot is released more than once.
 */
export class PerAppCounter {
  private readonly byApp = new Map<string, number>();
  private total = 0;

  /** Held now, by one app or by all. */
  held(appId?: string): number {
    return appId === undefined ? this.total : (this.byApp.get(appId) ?? 0);
  }

  /** Counts one more for `appId`, until the returned slot is released. */
  take(appId: string): CountedSlot {
    this.byApp.set(appId, this.held(appId) + 1);
    this.total++;
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.total--;
        const left = (this.byApp.get(appId) ?? 1) - 1;
        if (left > 0) this.byApp.set(appId, left);
        else this.byApp.delete(appId);
      },
    };
  }
}
