import http from 'node:http';

/**
 * A model endpoint in front of a fake provider (its `baseURL`) that decides, per request, how long
 * to hold it before forwarding: a slow provider, or (`'forever'`) one whose caller dies waiting.
 * `close()` also drops the requests it still holds.
 */
export async function startModelProxy(
  targetBaseUrl: string,
  hold: (requestIndex: number) => number | 'forever',
): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const delay = hold(requests++);
      open.add(res);
      res.once('close', () => open.delete(res));
      if (delay === 'forever') return;
      setTimeout(() => {
        const target = new URL(targetBaseUrl);
        const forwarded = http.request(
          {
            host: target.hostname,
            port: target.port,
            path: `${target.pathname}${req.url?.replace(/^\/v1/, '') ?? ''}`,
            method: req.method,
            headers: req.headers,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forwarded.on('error', () => res.destroy());
        forwarded.end(Buffer.concat(chunks));
      }, delay);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
      }),
  };
}
