import { useEffect, useRef, useState } from 'preact/hooks';
import type { ToolCall } from './api-types.ts';
import { createdBefore, type InboxFilters } from './inbox-filters.ts';
import { followLedger, type StreamStatus } from './ledger-stream.ts';
import { useSession } from './session-context.ts';

const PAGE_SIZE = 100;
const MAX_PAGES = 5;
const RESOLVED_MEMORY = 2_000;

export interface PendingCalls {
  calls: ToolCall[];
  loading: boolean;
  error: string | null;
  status: StreamStatus;
  statusDetail: string | null;
  /** The last change the stream brought, for the polite live region. */
  announcement: string;
}

/**
 * The inbox's data: the pending list read from the ledger, kept current by the ledger stream.
 *
 * Reads and events race: a call may be created after the list was read but before the stream was
 * subscribed, or resolved while a read is in flight. So the list is re-read on every `ready` of
 * the stream (the first one included), ids the stream has seen resolved are never re-added by an
 * older read, and calls the stream added during a read survive that read.
 */
export function usePendingCalls(filters: InboxFilters): PendingCalls {
  const { client } = useSession();
  const [calls, setCalls] = useState<Map<string, ToolCall>>(new Map());
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<StreamStatus>('connecting');
  const [statusDetail, setStatusDetail] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const resolved = useRef(new Set<string>());
  const addedDuringRead = useRef(new Set<string>());

  useEffect(() => {
    let alive = true;
    let generation = 0;
    const ageSeconds = filters.age;
    const matchesAge = (call: ToolCall) => {
      const cutoff = createdBefore(ageSeconds, Date.now());
      return cutoff === undefined || call.created_at <= cutoff;
    };

    const read = async () => {
      const mine = ++generation;
      addedDuringRead.current = new Set();
      try {
        const found: ToolCall[] = [];
        let after: string | undefined;
        const before = createdBefore(filters.age, Date.now());
        for (let page = 0; page < MAX_PAGES; page += 1) {
          const result = await client.listCalls({
            state: 'pending',
            agent: filters.agent,
            tool: filters.tool,
            created_before: before,
            limit: PAGE_SIZE,
            after,
          });
          found.push(...result.data);
          if (!result.has_more || result.next_cursor === null) break;
          after = result.next_cursor;
        }
        if (!alive || mine !== generation) return;
        setCalls((current) => {
          const next = new Map<string, ToolCall>();
          for (const call of found) if (!resolved.current.has(call.id)) next.set(call.id, call);
          for (const id of addedDuringRead.current) {
            const call = current.get(id);
            if (call) next.set(id, call);
          }
          return next;
        });
        setError(null);
      } catch (failure) {
        if (alive && mine === generation) setError(`Could not read the pending calls: ${(failure as Error).message}`);
      } finally {
        if (alive && mine === generation) setLoading(false);
      }
    };

    setLoading(true);
    setCalls(new Map());
    void read();
    const stop = followLedger(
      client,
      { agent: filters.agent, tool: filters.tool },
      {
        onReady: () => void read(),
        onCreated: (call) => {
          if (!alive || call.state !== 'pending' || call.kind === 'server' || !matchesAge(call)) return;
          addedDuringRead.current.add(call.id);
          setCalls((current) => new Map(current).set(call.id, call));
          setAnnouncement(`New pending call: ${call.name} for ${call.agent}.`);
        },
        onResolved: (call) => {
          if (!alive) return;
          resolved.current.add(call.id);
          if (resolved.current.size > RESOLVED_MEMORY)
            resolved.current = new Set([...resolved.current].slice(-RESOLVED_MEMORY / 2));
          setCalls((current) => {
            if (!current.has(call.id)) return current;
            const next = new Map(current);
            next.delete(call.id);
            return next;
          });
          setAnnouncement(`${call.name} for ${call.agent} is ${call.state}.`);
        },
        onStatus: (next, detail) => {
          if (!alive) return;
          setStatus(next);
          setStatusDetail(detail ?? null);
        },
        onFatal: (failure) => alive && setError(`Live updates stopped: ${failure.message}`),
      },
    );
    // Calls age into an "older than" window without any event: re-read once a minute.
    const ageTimer = filters.age === '' ? undefined : setInterval(() => void read(), 60_000);

    return () => {
      alive = false;
      stop();
      if (ageTimer !== undefined) clearInterval(ageTimer);
    };
  }, [client, filters.agent, filters.tool, filters.age]);

  const sorted = [...calls.values()].sort((a, b) =>
    a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1,
  );
  return { calls: sorted, loading, error, status, statusDetail, announcement };
}
