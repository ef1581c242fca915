import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, verified (or not) with the `standardwebhooks` library. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed payload when the signature verified with one of the secrets; undefined otherwise. */
  verified: { id: string; type: string; sequence: number; timestamp: string; data: Record<string, any> } | undefined;
  /** Which of `secrets` verified it (indexes). */
  verifiedWith: number[];
}

/**
 * A real local HTTP receiver of webhooks. `answer` decides each response: a status, or `'hang'`
 * (never answers). Every request is kept, with what the `standardwebhooks` library says of it.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  secrets: string[] = [];
  answer: (request: Received, index: number) => number | 'hang' = () => 200;
  private readonly hanging = new Set<ServerResponse>();
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const verifiedWith: number[] = [];
        let verified: Received['verified'];
        this.secrets.forEach((secret, index) => {
          try {
            verified = new Webhook(secret).verify(
              body,
              request.headers as Record<string, string>,
            ) as Received['verified'];
            verifiedWith.push(index);
          } catch {
            // not this secret
          }
        });
        const received: Received = { headers: request.headers, body, verified, verifiedWith };
        this.received.push(received);
        const answer = this.answer(received, this.received.length - 1);
        if (answer === 'hang') {
          this.hanging.add(response);
          return;
        }
        response
          .writeHead(answer, { 'content-type': 'text/plain' })
          .end(answer >= 300 ? `nope ${'x'.repeat(10_000)}` : 'ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  /** The verified events, in arrival order. */
  events(): NonNullable<Received['verified']>[] {
    return this.received.flatMap((request) => (request.verified ? [request.verified] : []));
  }

  async waitFor(predicate: (received: Received[]) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      if (Date.now() > deadline)
        throw new Error(`receiver: timed out; got ${this.received.map((r) => r.verified?.type).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
