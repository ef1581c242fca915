import type { Kysely } from 'kysely';
import type { LedgerRepo, Repositories, Store } from '../store.ts';
import type { Signals } from '../signals.ts';
import { cachingCurrentAgents } from '../current-agents-cache.ts';
import type { MigrationDialect } from '../migrations/migration-dialect.ts';
import { pendingMigrations } from '../migrations/migrate-to-latest.ts';
import { createAgentRepo } from './agent-repo.ts';
import { createApiKeyRepo } from './api-key-repo.ts';
import { createAppRepo } from './app-repo.ts';
import { createConversationRepo } from './conversation-repo.ts';
import { readConversationWithActiveTurn } from './conversation-with-active-turn.ts';
import type { Database } from './database-schema.ts';
import { createIdempotencyRepo } from './idempotency-repo.ts';
import { createItemRepo } from './item-repo.ts';
import { createLedgerRepo } from './ledger-repo.ts';
import { createQueuedInputRepo } from './queued-input-repo.ts';
import { createResponseRepo } from './response-repo.ts';
import { createTurnRepo } from './turn-repo.ts';
import { readTurnWithCalls } from './turn-with-calls.ts';
import { createResourceRepo } from './resource-repo.ts';
import { createSecretRepo } from './secret-repo.ts';
import { createSessionRepo } from './session-repo.ts';
import { createServerCallClaimRepo } from './server-call-claim-repo.ts';
import { announcingEndpointChanges, WebhookApps } from '../webhook-apps-cache.ts';
import { createWebhookRepo } from './webhook-repo.ts';
import { OutboxBuffer, withWebhookOutbox, writeOutbox } from './webhook-outbox.ts';
import { createLifecycleRepo } from './lifecycle-repo.ts';
import { HistoryWindows } from '../history-windows.ts';
import { GroupCommit } from './group-commit.ts';
import { HistoryWrites, withHistoryWindows } from '../history-window-tracking.ts';

/** The repositories bound to `db`, which is either the pool-level Kysely or a transaction. */
export function createRepositories(
  db: Kysely<Database>,
  ledgerChanged: (appId: string) => void = () => {},
  flavor: MigrationDialect = 'sqlite',
  webhooks?: { apps: WebhookApps; buffer: OutboxBuffer | null },
): Repositories {
  // Ledger and turn writes add their webhook events (webhook-outbox.ts).
  const turnsOn = (on: Kysely<Database>) => createTurnRepo(on);
  const ledgerOn = (on: Kysely<Database>) => createLedgerRepo(on, flavor);
  const outbox = webhooks
    ? withWebhookOutbox(
        db,
        ledgerOn(db),
        turnsOn(db),
        { apps: webhooks.apps, flavor, ledgerOn, turnsOn },
        webhooks.buffer,
      )
    : { ledger: ledgerOn(db), turns: turnsOn(db) };
  return {
    apps: createAppRepo(db),
    apiKeys: createApiKeyRepo(db),
    agents: createAgentRepo(db),
    conversations: Object.assign(
      { getWithActiveTurn: (appId: string, id: string) => readConversationWithActiveTurn(db, appId, id) },
      createConversationRepo(db),
    ),
    // Assigned, not spread with a new key: see createLedgerRepo.
    turns: Object.assign({ getWithCalls: (id: string) => readTurnWithCalls(db, id) }, outbox.turns),
    items: createItemRepo(db),
    ledger: announcingChanges(outbox.ledger, ledgerChanged),
    serverClaims: createServerCallClaimRepo(db),
    idempotency: createIdempotencyRepo(db),
    queuedInputs: createQueuedInputRepo(db),
    responses: createResponseRepo(db),
    resources: createResourceRepo(db),
    secrets: createSecretRepo(db),
    sessions: createSessionRepo(db),
    webhooks: createWebhookRepo(db, flavor),
    lifecycle: createLifecycleRepo(db),
  };
}

/**
 * A `Store` over an already migrated database. The store owns `db`: `close()` destroys it.
 *
 * Inside `transaction(work)` use only the `tx` repositories: SQLite and PGlite have a single
 * connection, which the transaction holds, so a call through the outer store would wait on
 * it forever.
 */
export function createKyselyStore(db: Kysely<Database>, signals: Signals, flavor: MigrationDialect = 'sqlite'): Store {
  const announce = (appId: string) => signals.publish('ledger', appId);
  const webhookApps = new WebhookApps(signals);
  const windows = new HistoryWindows();
  // SQLite's one writer commits the transactions that meet in an event-loop turn together; a
  // PostgreSQL pool runs them side by side, each with its own commit.
  const transactions = flavor === 'sqlite' ? new GroupCommit(db) : null;
  const runTransaction = <T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> =>
    transactions ? transactions.run(work) : db.transaction().execute(work);
  const repositories = withHistoryWindows(
    createRepositories(db, announce, flavor, { apps: webhookApps, buffer: null }),
    windows,
    signals,
  );
  return {
    ...repositories,
    agents: cachingCurrentAgents(repositories.agents, signals),
    webhooks: announcingEndpointChanges(repositories.webhooks, webhookApps),
    signals,
    async transaction(work) {
      // Announced once committed: a process that reads on the notice must find the change.
      const changed = new Set<string>();
      let written: string[] = [];
      const history = new HistoryWrites();
      const result = await runTransaction(async (trx) => {
        const buffer = new OutboxBuffer();
        const done = await work(
          history.track(createRepositories(trx, (appId) => changed.add(appId), flavor, { apps: webhookApps, buffer })),
        );
        // The transaction's webhook events, in the same commit as its changes.
        written = await writeOutbox(trx, { apps: webhookApps, flavor }, buffer);
        return done;
      });
      history.apply(windows, signals);
      for (const appId of changed) announce(appId);
      webhookApps.eventsWritten(written);
      return result;
    },
    async readiness() {
      try {
        const pending = await pendingMigrations(db as unknown as Kysely<unknown>, flavor);
        if (pending.length === 0) return { ready: true };
        return { ready: false, problem: `migrations not applied: ${pending.join(', ')} (run baton migrate)` };
      } catch (error) {
        return {
          ready: false,
          problem: `the database does not answer: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
    },
    async close() {
      await signals.close();
      await db.destroy();
    },
  };
}

/** The ledger repository, telling `changed` which app's ledger each write touched. */
function announcingChanges(ledger: LedgerRepo, changed: (appId: string) => void): LedgerRepo {
  return {
    ...ledger,
    async insert(entries) {
      await ledger.insert(entries);
      for (const appId of new Set(entries.map((entry) => entry.appId))) changed(appId);
    },
    async resolve(id, resolution, guard) {
      const resolved = await ledger.resolve(id, resolution, guard);
      if (resolved) changed(resolved.appId);
      return resolved;
    },
    // Claims and releases move a call in or out of the pool: inboxes and waiting workers look again.
    async claim(claim) {
      const claimed = await ledger.claim(claim);
      if (claimed.length > 0) changed(claim.appId);
      return claimed;
    },
    async clearLapsedLease(appId, id, token) {
      const cleared = await ledger.clearLapsedLease(appId, id, token);
      if (cleared) changed(appId);
      return cleared;
    },
    async releaseLease(appId, id, token, now) {
      const released = await ledger.releaseLease(appId, id, token, now);
      if (released) changed(appId);
      return released;
    },
  };
}
