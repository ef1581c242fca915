import type { SignalListener, Signals, SignalTopic } from './signals.ts';

/**
 * Signals within one process (SQLite, PGlite): subscribers hear this process's own notices, and
 * every process leads (one process per database is the common case; several SQLite processes
 * on one file each run their sweeps, whose conditional updates keep them apart).
 */
export class LocalSignals implements Signals {
  readonly crossProcess = false;
  private readonly listeners = new Map<SignalTopic, Set<SignalListener>>();

  publish(topic: SignalTopic, key: string): void {
    for (const listener of [...(this.listeners.get(topic) ?? [])]) listener(key);
  }

  subscribe(topic: SignalTopic, listener: SignalListener): () => void {
    let set = this.listeners.get(topic);
    if (!set) {
      set = new Set();
      this.listeners.set(topic, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  async lead(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
