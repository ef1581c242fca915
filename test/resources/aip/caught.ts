import { BatonError } from '../../../src/domain/errors/baton-error.ts';

/** Runs `action`, which must throw an BatonError, and returns that error for inspection. */
export function caught(action: () => unknown): BatonError {
  try {
    action();
  } catch (error) {
    if (error instanceof BatonError) return error;
    throw error;
  }
  throw new Error('expected an BatonError, but nothing was thrown');
}
