import type { TokenSendInit, TokenSender } from '../../../src/tools/auth/token-sender.ts';

/** A TokenSender that records calls and answers from a queue (or a default), optionally held back. */
export interface FakeTokenSender {
  readonly send: TokenSender;
  readonly calls: Array<{ url: string; init: TokenSendInit }>;
  /** Answers used in order; when empty, `answer` builds one. */
  readonly queue: Array<{ status: number; body: string } | Error>;
  /** Default answer: a fresh token `token-N` valid for an hour. */
  answer: (n: number) => { status: number; body: string };
  /** While set, every send waits for it before answering. */
  gate: Promise<void> | undefined;
}

export function fakeTokenSender(): FakeTokenSender {
  const fake: FakeTokenSender = {
    calls: [],
    queue: [],
    gate: undefined,
    answer: (n) => json(200, { access_token: `token-${n}`, token_type: 'Bearer', expires_in: 3600 }),
    send: async (url, init) => {
      fake.calls.push({ url, init });
      const n = fake.calls.length;
      if (fake.gate) await fake.gate;
      const next = fake.queue.shift();
      if (next instanceof Error) throw next;
      return next ?? fake.answer(n);
    },
  };
  return fake;
}

export function json(status: number, body: unknown): { status: number; body: string } {
  return { status, body: JSON.stringify(body) };
}

/** A promise and the function that settles it. */
export function deferred(): { promise: Promise<void>; release: () => void } {
  let release = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}
