import pg from 'pg';
import { LocalSignals } from './local-signals.ts';
import type { SignalListener, Signals, SignalTopic } from './signals.ts';

const CHANNEL = 'baton_signals';
const RECONNECT_MS = 1_000;
/** Keeps one statement's parameters well under PostgreSQL's limit. */
const MAX_NOTICES_PER_STATEMENT = 500;

/**
 * Signals between replicas by PostgreSQL LISTEN/NOTIFY, on one connection of its own per process.
 * The same session holds the advisory locks behind `lead`, so a process that dies (or loses its
 * connection) gives up its leads with it, and another replica takes them on its next try.
 *
 * The connection is restored after a loss; subscribers then get `'*'` (read everything again),
 * since notices sent meanwhile are gone.
 */
export class PostgresSignals implements Signals {
  readonly crossProcess = true;
  private readonly local = new LocalSignals();
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private readonly leads = new Set<string>();
  private closed = false;
  private everConnected = false;
  /** Notices asked for while a batch is being sent (see `publish`). */
  private readonly unsent = new Set<string>();
  private sending = false;
  /** One query at a time on the session: `pg` queues overlapping ones, but warns that it will stop. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly connectionString: string,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Connects and starts listening; call once before serving. */
  async start(): Promise<void> {
    await this.connection();
  }

  publish(topic: SignalTopic, key: string): void {
    // Notices carry no data, only what to read again: the same notice asked for twice while one
    // batch is on its way is sent once, in the next batch. A busy app's ledger changes many times
    // a second; this keeps its notices to about one statement per database round trip.
    this.unsent.add(JSON.stringify({ topic, key }));
    if (!this.sending) this.sendUnsent();
  }

  /** Sends the notices asked for so far in one statement, then any asked for meanwhile. */
  private sendUnsent(): void {
    const payloads = [...this.unsent].slice(0, MAX_NOTICES_PER_STATEMENT);
    for (const payload of payloads) this.unsent.delete(payload);
    this.sending = true;
    const calls = payloads.map((_, index) => `pg_notify($1, $${index + 2})`).join(', ');
    // Delivered back to this process by its own LISTEN as well, like to every other replica.
    void this.query(`select ${calls}`, [CHANNEL, ...payloads])
      .catch((error: unknown) => {
        // The notices are lost, so at least this process's subscribers hear them.
        for (const payload of payloads) this.deliver(payload);
        this.onError(error);
      })
      .finally(() => {
        this.sending = false;
        if (this.unsent.size > 0) this.sendUnsent();
      });
  }

  subscribe(topic: SignalTopic, listener: SignalListener): () => void {
    return this.local.subscribe(topic, listener);
  }

  async lead(name: string): Promise<boolean> {
    if (this.leads.has(name)) return true;
    try {
      const rows = await this.query<{ taken: boolean }>('select pg_try_advisory_lock(hashtext($1)) as taken', [
        `baton:${name}`,
      ]);
      if (rows[0]?.taken === true) this.leads.add(name);
      return this.leads.has(name);
    } catch (error) {
      this.onError(error);
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    await this.local.close();
    await client?.end().catch(() => {});
  }

  /** Runs `text` on the session after the queries before it. */
  private query<Row extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<Row[]> {
    const run = this.queue.then(async () => (await (await this.connection()).query<Row>(text, values)).rows);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.connectionString,
      connectionTimeoutMillis: 10_000,
      // Named, so an operator can tell this session (its LISTEN and advisory locks) in pg_stat_activity.
      application_name: 'baton-signals',
    });
    client.on('notification', (message) => this.deliver(message.payload));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    if (this.closed) {
      await client.end();
      throw new Error('signals closed');
    }
    this.client = client;
    if (this.everConnected)
      for (const topic of ['ledger', 'api-keys', 'agents', 'webhooks', 'webhook-events', 'history'] as const)
        this.local.publish(topic, '*');
    this.everConnected = true;
    return client;
  }

  private deliver(payload: string | undefined): void {
    try {
      const { topic, key } = JSON.parse(payload ?? '') as { topic: SignalTopic; key: string };
      this.local.publish(topic, key);
    } catch (error) {
      this.onError(error);
    }
  }

  /** The session ended: its leads are gone; reconnect soon, unless closing. */
  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    this.leads.clear();
    if (error) this.onError(error);
    this.reconnectLater();
  }

  /** Tries again every second until the database answers (or the process closes the signals). */
  private reconnectLater(): void {
    if (this.closed) return;
    setTimeout(() => {
      if (this.closed || this.client) return;
      this.connection().catch((error: unknown) => {
        this.onError(error);
        this.reconnectLater();
      });
    }, RECONNECT_MS).unref();
  }
}
