import { describe, expect, it } from 'vitest';
import { nowIso, type EngineContext } from '../../src/engine/engine-context.ts';

/** A context whose clock reads the given instants in turn; `nowIso` reads nothing else of it. */
function contextAt(instants: readonly number[]): EngineContext {
  let next = 0;
  return { clock: { now: () => new Date(instants[next++]!) } } as EngineContext;
}

describe('the engine writing the time as text', () => {
  it('writes each instant the clock reads, whether it read it just before or not', () => {
    const instants = [1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_001, 1_600_000_000_000, 1_700_000_000_001];
    const context = contextAt(instants);
    for (const instant of instants) expect(nowIso(context)).toBe(new Date(instant).toISOString());
  });

  it('refuses a clock that reads no instant, as Date does', () => {
    expect(() => nowIso(contextAt([Number.NaN]))).toThrow(RangeError);
    expect(() => nowIso(contextAt([Number.NaN]))).toThrow(RangeError);
  });
});
