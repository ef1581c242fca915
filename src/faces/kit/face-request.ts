import type { Principal } from '../../domain/principal.ts';

/**
 * What the server attaches to every request before a face sees it: who asks, and the
 * `Idempotency-Key` reservation of a POST. Declared on the faces' side, which read them; the
 * server fills them in (authentication and the idempotency hooks).
 */

/** A reserved `Idempotency-Key`: the request's outcome is stored under it, or the key is freed. */
export interface IdempotencyHandle {
  key: string;
  /**
   * The key was held by a request whose server died before it answered: this one is its retry,
   * and may find work the first run started (see the engine's `SubmissionActor.retriesDeadRun`).
   */
  takenOver: boolean;
  /** Stores the response so a retry with the same key replays it. */
  complete(status: number, body: string): Promise<void>;
  /** Drops the reservation (the request failed on our side; a retry may run it again). */
  release(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    idempotency: IdempotencyHandle | undefined;
  }
  interface FastifyContextConfig {
    /**
     * A check the server runs before authentication (e.g. `/mcp`'s Origin rule, which the MCP
     * spec wants answered with 403 whatever the key): throwing refuses the request.
     */
    beforeAuthentication?: (request: FastifyRequest) => Promise<void>;
  }
}
