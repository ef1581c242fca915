import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The API the server-tools phase calls, directly and through Baton's OpenAPI tool: a bare
 * node:http server on loopback. `GET /prices/{sku}` answers `{"sku", "price", "currency"}`;
 * `GET /healthz` opens the load generator's connections. It counts the price requests, so the
 * parent can check that each tool turn made exactly one call.
 *
 * IPC requests ({ id, cmd }) → replies ({ id, result }):
 *   stats {}   { requests }: price requests answered so far
 */
let requests = 0;
const server = createServer((request, response) => {
  const url = request.url ?? '';
  if (request.method === 'GET' && url.startsWith('/prices/')) {
    requests += 1;
    const sku = decodeURIComponent(url.slice('/prices/'.length));
    const body = JSON.stringify({ sku, price: 42, currency: 'EUR' });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  } else if (request.method === 'GET' && url === '/healthz') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"ok":true}');
  } else {
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end('{"error":"not found"}');
  }
});
// Node's default keep-alive timeout (5 s) is shorter than a quiet stretch between two phases.
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

process.on('message', (request: { id: number; cmd: string }) => {
  if (request.cmd === 'stats') process.send?.({ id: request.id, result: { requests } });
  else process.send?.({ id: request.id, error: `unknown command ${request.cmd}` });
});

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('disconnect', stop);
process.on('SIGTERM', stop);
process.send?.({ type: 'ready', url, pid: process.pid });
