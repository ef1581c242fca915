import { expect } from 'vitest';
import { SandboxError, type SandboxErrorCode } from '../../../src/tools/sandbox/sandbox-error.ts';

/** Awaits a run that must fail with `code`; returns the error for further checks. */
export async function expectSandboxError(run: Promise<unknown>, code: SandboxErrorCode): Promise<SandboxError> {
  let caught: unknown;
  try {
    await run;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a SandboxError ${code}`).toBeInstanceOf(SandboxError);
  const error = caught as SandboxError;
  expect({ code: error.code, message: error.message }).toMatchObject({ code });
  // Messages quote the guest, never the host: no host file paths or host stack frames.
  expect(error.message).not.toMatch(/node_modules|\.ts:\d|\.mjs:\d|file:\/\//);
  return error;
}
