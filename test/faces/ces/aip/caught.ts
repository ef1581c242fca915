import { EngineError } from '../../../../src/engine/engine-error.ts';

/** Runs `action`, which must throw an EngineError, and returns that error for inspection. */
export function caught(action: () => unknown): EngineError {
  try {
    action();
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error('expected an EngineError, but nothing was thrown');
}
