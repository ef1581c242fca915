import type { ItemRecord, LedgerEntryRecord, ToolExecutor } from '../../domain/records.ts';
import type { Repositories } from '../../store/store.ts';

/**
 * What a chain of responses needs to know about server-executed calls (OpenAPI, MCP, JavaScript
 * tools and fakes) behind a list of stored items. Their call items say who executed them, but
 * their outputs do not, and their approval state and early results live in the ledger.
 */

/** Executors of calls Baton ran itself; the client must never be asked to answer them. */
export type ServerExecutor = 'server' | 'fake';

export function isServerExecutor(executor: ToolExecutor): executor is ServerExecutor {
  return executor === 'server' || executor === 'fake';
}

export interface ServerCallIndex {
  /** The server-executed calls known here, by call id. */
  executors: ReadonlyMap<string, ServerExecutor>;
  /** Their ledger rows (when loaded), for the approval state and results not yet written as items. */
  ledger: ReadonlyMap<string, LedgerEntryRecord>;
}

export const NO_SERVER_CALLS: ServerCallIndex = { executors: new Map(), ledger: new Map() };

/** An item as rendered: a stored one, or a result read from the ledger (see `withLedgerResults`). */
export type RenderItem = Pick<ItemRecord, 'payload' | 'groupId'> & { id?: string };

/**
 * Finds the server-executed calls among `items` and the ones their outputs answer. An output's
 * call may sit outside the list (a resumed turn's outputs are the next response's input), so
 * its turn's items are read for it; `extraLedger` saves a read the caller already made.
 */
export async function loadServerCalls(
  store: Pick<Repositories, 'items' | 'ledger'>,
  items: readonly ItemRecord[],
  extraLedger: readonly LedgerEntryRecord[] = [],
): Promise<ServerCallIndex> {
  const executors = new Map<string, ServerExecutor>();
  const callTurns = new Set<string>();
  const calls = new Set<string>();
  for (const item of items) {
    if (item.payload.type !== 'function_call') continue;
    calls.add(item.payload.callId);
    if (isServerExecutor(item.payload.executor)) {
      executors.set(item.payload.callId, item.payload.executor);
      callTurns.add(item.turnId);
    }
  }
  const orphanTurns = new Set(
    items.flatMap((item) =>
      item.payload.type === 'function_call_output' && !calls.has(item.payload.callId) ? [item.turnId] : [],
    ),
  );
  for (const turnId of orphanTurns) {
    for (const item of await store.items.listByTurn(turnId)) {
      if (item.payload.type === 'function_call' && isServerExecutor(item.payload.executor))
        executors.set(item.payload.callId, item.payload.executor);
    }
  }
  const ledger = new Map<string, LedgerEntryRecord>();
  const loadedTurns = new Set(extraLedger.map((entry) => entry.turnId));
  for (const entry of extraLedger) ledger.set(entry.id, entry);
  for (const turnId of callTurns) {
    if (loadedTurns.has(turnId)) continue;
    for (const entry of await store.ledger.listByTurn(turnId)) ledger.set(entry.id, entry);
  }
  return { executors, ledger };
}

/**
 * Adds the results of server calls that already ran but whose output items are not in `items`.
 * In a step that also has client calls, Baton runs the server call at once but writes its output
 * only at resume, with the client's outputs, in call order (and then into the next response's
 * input). The response that shows the call shows its result too, read from the ledger, after the
 * step's other items — the same place it takes when the step needs nothing from the client.
 */
export function withLedgerResults(items: readonly RenderItem[], index: ServerCallIndex): RenderItem[] {
  const answered = new Set(
    items.flatMap((item) => (item.payload.type === 'function_call_output' ? [item.payload.callId] : [])),
  );
  const missing = new Map<string, LedgerEntryRecord[]>();
  for (const item of items) {
    const payload = item.payload;
    if (payload.type !== 'function_call' || !index.executors.has(payload.callId) || answered.has(payload.callId))
      continue;
    const entry = index.ledger.get(payload.callId);
    if (!entry || entry.state === 'pending') continue;
    missing.set(item.groupId, [...(missing.get(item.groupId) ?? []), entry]);
  }
  if (missing.size === 0) return [...items];
  const lastOfGroup = new Map(items.map((item, position) => [item.groupId, position]));
  const result: RenderItem[] = [];
  items.forEach((item, position) => {
    result.push(item);
    const entries = lastOfGroup.get(item.groupId) === position ? missing.get(item.groupId) : undefined;
    for (const entry of [...(entries ?? [])].sort((a, b) => a.callIndex - b.callIndex)) {
      result.push({
        groupId: `${item.groupId}_server`,
        payload: {
          type: 'function_call_output',
          callId: entry.id,
          name: entry.toolName,
          output: entry.result ?? [],
          isError: entry.isError,
          synthetic: false,
        },
      });
    }
  });
  return result;
}

/** The ids of a paused turn's blocking calls, split by who can resolve them. */
export function pendingIdsByKind(blocking: readonly LedgerEntryRecord[]): {
  clientCallIds: string[];
  approvalIds: string[];
} {
  // Only `client` calls are answered with function_call_output; approvals are decided by a person.
  return {
    clientCallIds: blocking.filter((entry) => entry.kind === 'client').map((entry) => entry.id),
    approvalIds: blocking.filter((entry) => entry.kind === 'approval').map((entry) => entry.id),
  };
}

/**
 * True for items no client is shown: calls the engine refused as invalid, and its answers to
 * them (which only the model reads, to correct itself).
 */
export function isHiddenItem(item: RenderItem): boolean {
  const payload = item.payload;
  if (payload.type === 'function_call') return payload.executor === 'invalid';
  return payload.type === 'function_call_output' && item.groupId.endsWith('_invalid');
}
