/**
 * The `context` / `ctx` argument guest code receives: who is calling, and the session variables.
 *
 * It is a JSON copy made for each call. Writes the guest makes (ctx.variables.x = 1) stay inside
 * the sandbox and vanish with it: they are not written back to the session. (CES's Python
 * callback context can write variables; a write-back would come as an explicit part of the
 * result, not as shared mutable state.)
 */
export interface SandboxToolContext {
  readonly sessionId?: string;
  readonly agentName?: string;
  readonly invocationId?: string;
  readonly variables?: Readonly<Record<string, unknown>>;
}

/** The guest's view: every field present (null when unknown), variables at least `{}`. */
export interface GuestToolContext {
  readonly sessionId: string | null;
  readonly agentName: string | null;
  readonly invocationId: string | null;
  readonly variables: Readonly<Record<string, unknown>>;
}

export function toGuestContext(context: SandboxToolContext | undefined): GuestToolContext {
  return {
    sessionId: context?.sessionId ?? null,
    agentName: context?.agentName ?? null,
    invocationId: context?.invocationId ?? null,
    variables: context?.variables ?? {},
  };
}
