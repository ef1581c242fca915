import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { BatonProcess, freePort, makeWorkspace } from './baton-process.ts';
import { freshDatabasePerTest, processDatabases } from './process-databases.ts';

/**
 * Webhooks survive a crash of Baton (issue 20): the outbox row is written in the transaction of
 * the change, so a `baton serve` SIGKILLed between the change and its delivery delivers it after a
 * restart on the same data, and a delivery cut mid-request is sent again once its claim lapses.
 * Every request is verified with the `standardwebhooks` library; every attempt of an event carries
 * the same `webhook-id` and body, and each event is acknowledged (answered 2xx) exactly once.
 *
 * On SQLite in the data directory, and on PostgreSQL when the machine has a server (a printed
 * reason otherwise; BATON_REQUIRE_POSTGRES=1 makes a missing server fail instead).
 */

/** One attempt's deadline: a claim lapses after twice this and 5 s (webhook-delivery.ts). */
const TIMEOUT_SECONDS = 2;
const CLAIM_LEASE_MS = TIMEOUT_SECONDS * 2_000 + 5_000;

interface Arrival {
  headers: IncomingHttpHeaders;
  body: string;
  /** The payload when `standardwebhooks` verified the request with the endpoint's secret. */
  event: { id: string; type: string; sequence: number; data: Record<string, any> } | undefined;
  /** Whether it was answered 2xx (false: refused, or left hanging). */
  acknowledged: boolean;
}

/** A webhook receiver on a fixed port, so it can be down first and come up later at the same URL. */
class Receiver {
  readonly arrivals: Arrival[] = [];
  secret = '';
  /** The first `hang` requests get no answer at all. */
  hang = 0;
  private server: Server | null = null;
  private readonly open = new Set<ServerResponse>();

  constructor(readonly port: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async up(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let event: Arrival['event'];
        try {
          event = new Webhook(this.secret).verify(body, request.headers as Record<string, string>) as Arrival['event'];
        } catch {
          event = undefined;
        }
        const arrival: Arrival = { headers: request.headers, body, event, acknowledged: false };
        this.arrivals.push(arrival);
        if (this.hang > 0) {
          this.hang -= 1;
          this.open.add(response);
          return;
        }
        arrival.acknowledged = event !== undefined;
        response.writeHead(event ? 200 : 401).end(event ? 'ok' : 'bad signature');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  async down(): Promise<void> {
    for (const response of this.open) response.destroy();
    this.open.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }

  async waitFor(predicate: (arrivals: Arrival[]) => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.arrivals)) {
      if (Date.now() > deadline)
        throw new Error(`receiver: no ${what} within ${timeoutMs} ms; got ${JSON.stringify(this.summary())}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  summary(): Array<{ id: unknown; type: string | undefined; acknowledged: boolean }> {
    return this.arrivals.map((arrival) => ({
      id: arrival.headers['webhook-id'],
      type: arrival.event?.type,
      acknowledged: arrival.acknowledged,
    }));
  }

  /** Every request verified; per webhook-id one body, and exactly one acknowledgement. */
  expectExactlyOnce(): Map<string, Arrival[]> {
    expect(
      this.arrivals.filter((arrival) => arrival.event === undefined),
      'requests standardwebhooks refused',
    ).toEqual([]);
    const byId = new Map<string, Arrival[]>();
    for (const arrival of this.arrivals) {
      const id = String(arrival.headers['webhook-id']);
      expect(arrival.event!.id).toBe(id);
      byId.set(id, [...(byId.get(id) ?? []), arrival]);
    }
    for (const [id, attempts] of byId) {
      expect(new Set(attempts.map((attempt) => attempt.body)).size, `bodies of ${id}`).toBe(1);
      expect(attempts.filter((attempt) => attempt.acknowledged).length, `acknowledgements of ${id}`).toBe(1);
    }
    return byId;
  }
}

function writeConfig(configFile: string): void {
  writeFileSync(
    configFile,
    stringifyYaml({
      agents: [DEMO_AGENT],
      // The receiver listens on loopback, which the egress guard refuses unless listed.
      egress: { allow: ['127.0.0.1'] },
      webhooks: { timeout_seconds: TIMEOUT_SECONDS, retry_schedule_seconds: [0.2, 0.2, 0.5, 0.5, 1, 1, 1, 1] },
    }),
  );
}

const databases = await processDatabases();

for (const database of databases) {
  describe(`webhook delivery across a SIGKILL of baton serve on ${database.name}`, () => {
    const processes: BatonProcess[] = [];
    const receivers: Receiver[] = [];
    const cleanups: Array<() => void> = [];
    let databaseUrl: string | undefined;
    freshDatabasePerTest(database, processes, (url) => (databaseUrl = url));
    afterEach(async () => {
      await Promise.all(receivers.splice(0).map((receiver) => receiver.down()));
      for (const cleanup of cleanups.splice(0)) cleanup();
    });

    async function setUp() {
      const workspace = makeWorkspace('baton-webhook-crash-');
      cleanups.push(() => workspace.remove());
      writeConfig(workspace.configFile);
      const start = async () => {
        const baton = await BatonProcess.start({
          dataDir: workspace.dataDir,
          configFile: workspace.configFile,
          databaseUrl,
          timeoutMs: 30_000,
        });
        processes.push(baton);
        return baton;
      };
      const receiver = new Receiver(await freePort());
      receivers.push(receiver);
      const baton = await start();
      const created = await baton.request('POST', '/v1/webhook-endpoints', { url: receiver.url });
      expect(created.status, created.text).toBe(201);
      receiver.secret = created.body.secret;
      return { baton, receiver, start, endpointId: created.body.id as string };
    }

    /** A thread of the demo agent paused on its approval call: tool_call.pending, then turn.requires_action. */
    async function pauseOnApproval(baton: BatonProcess): Promise<{ threadId: string; callId: string }> {
      const thread = await baton.request('POST', '/v1/threads', { agent: 'refund-desk' });
      const message = await baton.request('POST', `/v1/threads/${thread.body.id}/messages`, {
        content: 'refund of $20',
      });
      expect(message.body.choices?.[0]?.finish_reason, message.text).toBe('tool_use');
      return { threadId: thread.body.id, callId: message.body.choices[0].message.tool_calls[0].id };
    }

    it('delivers the events of a change made while the receiver was down, after Baton is killed and restarted', async () => {
      const { baton, receiver, start, endpointId } = await setUp();
      // The receiver is down: the change commits, its deliveries are refused (connection refused).
      const { threadId, callId } = await pauseOnApproval(baton);
      await baton.kill('SIGKILL');
      expect(receiver.arrivals).toHaveLength(0);

      await receiver.up();
      const restarted = await start();
      await receiver.waitFor(
        (arrivals) => arrivals.filter((arrival) => arrival.acknowledged).length >= 2,
        20_000,
        'two acknowledged events',
      );
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // nothing is sent again once acknowledged
      const byId = receiver.expectExactlyOnce();
      const events = [...byId.values()].map((attempts) => attempts[0]!.event!);
      expect(events.map((event) => event.type)).toEqual(['tool_call.pending', 'turn.requires_action']);
      expect(events[0]!.sequence).toBeLessThan(events[1]!.sequence);
      expect(events[0]!.data).toMatchObject({
        id: callId,
        state: 'pending',
        thread_id: threadId,
        agent: 'refund-desk',
      });
      expect(events[1]!.data).toMatchObject({ object: 'turn', status: 'requires_action', thread_id: threadId });

      const deliveries = await restarted.request('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`);
      expect(deliveries.body.data).toHaveLength(2);
      for (const delivery of deliveries.body.data)
        expect(delivery).toMatchObject({ status: 'succeeded', last_response_code: 200, next_attempt_at: null });
      expect(deliveries.body.data.map((delivery: { event_id: string }) => delivery.event_id).sort()).toEqual(
        [...byId.keys()].sort(),
      );
    }, 90_000);

    it('sends a delivery cut mid-request by the SIGKILL again after the restart, with the same webhook-id', async () => {
      const { baton, receiver, start, endpointId } = await setUp();
      await receiver.up();
      receiver.hang = 1; // the first request gets no answer: Baton dies while it waits
      const { callId } = await pauseOnApproval(baton);
      await receiver.waitFor((arrivals) => arrivals.length >= 1, 10_000, 'first attempt');
      await baton.kill('SIGKILL');
      const cut = receiver.arrivals[0]!;
      expect(cut.acknowledged).toBe(false);

      const restartedAt = Date.now();
      const restarted = await start();
      await receiver.waitFor(
        (arrivals) => arrivals.filter((arrival) => arrival.acknowledged).length >= 2,
        CLAIM_LEASE_MS + 20_000,
        'both events acknowledged',
      );
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const byId = receiver.expectExactlyOnce();
      expect([...byId.values()].map((attempts) => attempts[0]!.event!.type)).toEqual([
        'tool_call.pending',
        'turn.requires_action',
      ]);
      // The cut one came again, the same event; its claim had to lapse first.
      const cutId = String(cut.headers['webhook-id']);
      const again = byId.get(cutId)!;
      expect(again.map((attempt) => attempt.acknowledged)).toEqual([false, true]);
      expect(again[1]!.event!.data.id).toBe(callId);
      const cutDelivery = (
        await restarted.request('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`)
      ).body.data.find((delivery: { event_id: string }) => delivery.event_id === cutId);
      expect(cutDelivery).toMatchObject({ status: 'succeeded', attempts: 2, last_response_code: 200 });
      console.log(
        `webhooks on ${database.name}: the cut delivery was sent again ${((Date.now() - restartedAt) / 1000).toFixed(1)} s ` +
          `after the restart began (claim lease ${CLAIM_LEASE_MS / 1000} s)`,
      );
    }, 120_000);
  });
}
