import { BatonError } from '../../domain/errors/baton-error.ts';
import type { Principal } from '../../domain/principal.ts';
import type { LedgerEntryRecord } from '../../domain/records.ts';
import { requireToolInScope } from '../../domain/worker-scope.ts';
import { nowIso, type EngineContext } from '../engine-context.ts';
import { alreadyResolved, applyResult, type CallResult, type SubmissionActor } from '../ledger/ledger-transitions.ts';
import { leaseLost } from '../ledger/lease-errors.ts';
import { waitForLedgerChange } from './ledger-waits.ts';
import { WorkerToolNames } from './worker-tool-names.ts';

/** What a tool worker asks for (`POST /v1/tool-calls/claim`), checked by the face. */
export interface WorkerClaimRequest {
  tools: readonly string[];
  agents?: readonly string[];
  maxCalls: number;
  leaseSeconds: number;
  /** Long-poll: how long to wait for a call when none is pending. */
  waitSeconds: number;
  /** The worker's label, shown to people; the key id when absent. */
  worker?: string;
}

/** What the engine provides the workers: the result checks of a call's tool, and resuming its turn. */
export interface WorkerHooks {
  /** Refuses a result the call's tool does not accept (its enforced response schema). */
  checkResult(entry: LedgerEntryRecord, result: CallResult): Promise<void>;
  /** Resumes the call's turn in the background once nothing of it is pending; whether it did. */
  resume(turnId: string): Promise<boolean>;
}

/** How often a waiting claim looks again when no notice came (a lapsed lease, another process on SQLite). */
const LOCAL_FALLBACK_MS = 2_000;
const PUSHED_FALLBACK_MS = 10_000;

/**
 * Tool workers (docs/tool-workers.md): a fleet of processes claims pending calls of the tools it
 * serves, each under a lease it renews, and answers them with the lease's token. The lease lives
 * on the ledger row, so it holds across replicas; the token fences a worker that lost its lease
 * (it lapsed, another worker took the call over) from writing a result.
 */
export class ToolWorkers {
  private readonly names: WorkerToolNames;
  private stopping = false;
  private readonly stopListeners = new Set<() => void>();

  constructor(
    private readonly context: EngineContext,
    private readonly hooks: WorkerHooks,
  ) {
    this.names = new WorkerToolNames(context);
  }

  /**
   * Claims at most `maxCalls` pending calls of `tools`, oldest first, each under a new lease that
   * counts as an attempt. With `waitSeconds`, waits that long for one when none is pending.
   */
  async claim(principal: Principal, request: WorkerClaimRequest): Promise<LedgerEntryRecord[]> {
    request.tools.forEach((tool, index) => requireToolInScope(principal, tool, `tools[${index}]`));
    await this.names.check(principal.appId, request.tools);
    const until = Date.now() + request.waitSeconds * 1000;
    const fallbackMs = this.context.store.signals.crossProcess ? PUSHED_FALLBACK_MS : LOCAL_FALLBACK_MS;
    for (;;) {
      const now = this.context.clock.now();
      const claimed = await this.context.store.transaction((tx) =>
        tx.ledger.claim({
          appId: principal.appId,
          tools: request.tools,
          ...(request.agents ? { agents: request.agents } : {}),
          limit: request.maxCalls,
          now: now.toISOString(),
          expiresAt: new Date(now.getTime() + request.leaseSeconds * 1000).toISOString(),
          holder: request.worker ?? principal.keyId,
          keyId: principal.keyId,
          newToken: () => this.context.newId('lease'),
        }),
      );
      const left = until - Date.now();
      if (claimed.length > 0 || this.stopping || left <= 0) return claimed;
      await waitForLedgerChange(this.context.store.signals, principal.appId, left, fallbackMs, {
        onStop: (listener) => {
          this.stopListeners.add(listener);
          return () => this.stopListeners.delete(listener);
        },
      });
    }
  }

  /** Extends the lease `token` holds on the call by `leaseSeconds` from now (the worker's heartbeat). */
  async renew(principal: Principal, callId: string, token: string, leaseSeconds: number): Promise<LedgerEntryRecord> {
    const entry = await this.callFor(principal, callId);
    const now = this.context.clock.now();
    const renewed = await this.context.store.ledger.renewLease(
      principal.appId,
      callId,
      token,
      now.toISOString(),
      new Date(now.getTime() + leaseSeconds * 1000).toISOString(),
    );
    if (!renewed)
      throw leaseLost((await this.context.store.ledger.get(principal.appId, callId)) ?? entry, nowIso(this.context));
    return renewed;
  }

  /** Gives an unstarted claim back: the call waits for a worker again, and the claim was no attempt. */
  async release(principal: Principal, callId: string, token: string): Promise<LedgerEntryRecord> {
    const entry = await this.callFor(principal, callId);
    const released = await this.context.store.ledger.releaseLease(principal.appId, callId, token, nowIso(this.context));
    if (!released)
      throw leaseLost((await this.context.store.ledger.get(principal.appId, callId)) ?? entry, nowIso(this.context));
    return released;
  }

  /**
   * A worker's result, accepted only while `token` holds a live lease on the call. The turn resumes
   * in the background when this was the last call it waited for: a worker does not wait for the
   * model. Returns the resolved call and whether its turn resumed.
   */
  async submit(
    principal: Principal,
    callId: string,
    token: string,
    result: CallResult,
    submission: SubmissionActor,
  ): Promise<{ entry: LedgerEntryRecord; resumed: boolean }> {
    const entry = await this.callFor(principal, callId);
    if (entry.state !== 'pending') throw alreadyResolved(entry, 'tool_call_id');
    if (!entry.worker) throw leaseLost(entry, nowIso(this.context));
    await this.hooks.checkResult(entry, result);
    const now = nowIso(this.context);
    const resolved = await applyResult(this.context.store, entry, result, submission, now, 'tool_call_id', {
      lease: token,
      now,
    });
    return { entry: resolved, resumed: await this.hooks.resume(resolved.turnId) };
  }

  /** Waiting claims answer now (with what they have) and new ones do not wait: the server is draining. */
  stopWaiting(): void {
    this.stopping = true;
    for (const listener of [...this.stopListeners]) listener();
    this.stopListeners.clear();
  }

  /** The call, refused when it is not the app's or not of a tool the key may serve. */
  private async callFor(principal: Principal, callId: string): Promise<LedgerEntryRecord> {
    const entry = await this.context.store.ledger.get(principal.appId, callId);
    if (!entry) {
      throw new BatonError(
        'tool_call_not_found',
        `No tool call found with id '${callId}'. Claim calls with POST /v1/tool-calls/claim and use their ids.`,
        { param: 'id' },
      );
    }
    requireToolInScope(principal, entry.toolName, null);
    return entry;
  }
}
