import { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { StreamSlots } from '../faces/kit/stream-slots.ts';
import type { Store } from '../store/store.ts';

/**
 * What a draining process does (on SIGTERM), in order:
 * 1. `/readyz` answers 503, so a load balancer takes the replica out; every response from now on
 *    carries `Connection: close`, so no client sends another request on its connection;
 * 2. after `delayMs` (the time a balancer needs to notice, `server.shutdown_delay_seconds`), the
 *    listener closes: new connections are refused (a balancer retries them on another replica)
 *    and idle kept-alive ones are closed; long-lived streams end with what a client needs to
 *    reconnect (ledger streams have event ids and `retry:`; Responses WebSockets close with 1001);
 * 3. requests in flight and turns running here finish, for up to `timeoutMs`
 *    (`server.drain_timeout_seconds`); past it, what still runs is cut: its turns stay
 *    `in_progress` under a lease that lapses, and another replica (or this one, restarted) takes
 *    them over, so nothing accepted is lost.
 */
export class DrainState {
  private started = false;

  get draining(): boolean {
    return this.started;
  }

  start(): void {
    this.started = true;
  }
}

/** How long a readiness probe waits for the database before it calls the replica not ready. */
const READINESS_TIMEOUT_MS = 2_000;

/**
 * `/readyz`: ready when the database answers, every migration is applied and the process is not
 * draining; otherwise 503 with what is wrong. `/healthz` stays the liveness probe (the process
 * answers at all), so a replica that lost its database is taken out of rotation, not restarted.
 */
export function registerReadiness(app: FastifyInstance, store: Store, drain: DrainState): void {
  app.get('/readyz', async (_request, reply) => {
    if (drain.draining)
      return reply.status(503).send({ ready: false, problem: 'draining: the server is shutting down' });
    const timeout = new Promise<{ ready: false; problem: string }>((resolve) =>
      setTimeout(
        () => resolve({ ready: false, problem: `the database did not answer within ${READINESS_TIMEOUT_MS} ms` }),
        READINESS_TIMEOUT_MS,
      ).unref(),
    );
    const state = await Promise.race([store.readiness(), timeout]);
    return state.ready ? { ready: true } : reply.status(503).send(state);
  });
  app.addHook('onSend', async (_request, reply) => {
    if (drain.draining) void reply.header('connection', 'close');
  });
}

/** Resolves after `ms`, or at once for 0. */
export function pause(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

/** `work`, or `false` once `ms` have passed without it settling (its rejection is kept from going unhandled). */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([work.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once the engine runs no turn and no background work in this process, or at `deadline` (ms). */
export async function settled(
  engine: { idle(): Promise<void>; runningTurns(): number },
  deadline: number,
): Promise<void> {
  while (Date.now() < deadline) {
    await engine.idle();
    if (engine.runningTurns() === 0) return;
    await pause(50);
  }
}

/**
 * A comment on every open Server-Sent Events stream as the server starts closing: a ledger event
 * stream ends now (its client reconnects, to another replica, resuming from Last-Event-ID); a turn
 * streamed to its caller goes on until the turn ends or the drain timeout cuts it, and a cut
 * caller sends the request again with the same Idempotency-Key to rejoin the turn.
 */
export function tellStreamsToReconnect(streams: StreamSlots): void {
  for (const target of streams.openTargets()) {
    if (!(target instanceof ServerResponse) || !target.headersSent || target.writableEnded) continue;
    if (!String(target.getHeader('content-type') ?? '').startsWith('text/event-stream')) continue;
    target.write(
      ': server draining: a stream cut now can be resumed elsewhere (ledger events: reconnect with ' +
        'Last-Event-ID; a turn: send the request again with the same Idempotency-Key)\n\n',
    );
  }
}
