import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The webhook receiver of the webhooks phase (bench/webhooks.ts), in a process of its own so
 * receiving takes no time from the load generator or from Baton. It answers every POST at once
 * with 204, and counts what it got by path (`/hooks/{variant}/{n}`: which Baton child, which of
 * its endpoints). For each delivery it notes the lag: its arrival (`Date.now()`) minus the
 * event's `timestamp` in the payload, which is when Baton made the change that caused it (same
 * machine, same clock). Signatures are not verified: test/webhooks does that; here it would only
 * add the receiver's CPU to a 2-core machine's load.
 *
 * IPC: `stats` → `{ [variant]: { deliveries, endpoints: { [n]: count }, types: { [type]: count }, lagsMs } }`
 * (lags of the deliveries since the last `reset-lags`); `reset-lags` → null; `count { variant }` → its
 * deliveries so far (cheap: the bench polls it).
 */

interface VariantStats {
  deliveries: number;
  endpoints: Record<string, number>;
  types: Record<string, number>;
  lagsMs: number[];
  unparsed: number;
}

const stats = new Map<string, VariantStats>();

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const arrived = Date.now();
    response.writeHead(204).end();
    const [, , variant = 'unknown', endpoint = '?'] = (request.url ?? '').split('/');
    let entry = stats.get(variant);
    if (!entry) {
      entry = { deliveries: 0, endpoints: {}, types: {}, lagsMs: [], unparsed: 0 };
      stats.set(variant, entry);
    }
    entry.deliveries += 1;
    entry.endpoints[endpoint] = (entry.endpoints[endpoint] ?? 0) + 1;
    try {
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string; timestamp?: string };
      const type = payload.type ?? 'unknown';
      entry.types[type] = (entry.types[type] ?? 0) + 1;
      const created = Date.parse(payload.timestamp ?? '');
      if (Number.isFinite(created)) entry.lagsMs.push(arrived - created);
      else entry.unparsed += 1;
    } catch {
      entry.unparsed += 1;
    }
  });
});
// Baton's delivery agent keeps connections alive between deliveries; keep them open as long as
// a slice of another variant lasts, so each slice does not start by reconnecting.
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

process.on('message', (message: { id: number; cmd: string; variant?: string }) => {
  if (message.cmd === 'stats') process.send?.({ id: message.id, result: Object.fromEntries(stats) });
  else if (message.cmd === 'count')
    process.send?.({ id: message.id, result: stats.get(message.variant ?? '')?.deliveries ?? 0 });
  else if (message.cmd === 'reset-lags') {
    for (const entry of stats.values()) entry.lagsMs = [];
    process.send?.({ id: message.id, result: null });
  } else process.send?.({ id: message.id, error: `unknown command ${message.cmd}` });
});
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
process.send?.({ type: 'ready', url, pid: process.pid });
