import type { Kysely } from 'kysely';
import type { Repositories, Store } from '../store.ts';
import { createAgentRepo } from './agent-repo.ts';
import { createApiKeyRepo } from './api-key-repo.ts';
import { createAppRepo } from './app-repo.ts';
import { createConversationRepo } from './conversation-repo.ts';
import type { Database } from './database-schema.ts';
import { createIdempotencyRepo } from './idempotency-repo.ts';
import { createItemRepo } from './item-repo.ts';
import { createLedgerRepo } from './ledger-repo.ts';
import { createQueuedInputRepo } from './queued-input-repo.ts';
import { createResponseRepo } from './response-repo.ts';
import { createTurnRepo } from './turn-repo.ts';
import { createResourceRepo } from './resource-repo.ts';
import { createSecretRepo } from './secret-repo.ts';
import { createSessionRepo } from './session-repo.ts';

/** The repositories bound to `db`, which is either the pool-level Kysely or a transaction. */
export function createRepositories(db: Kysely<Database>): Repositories {
  return {
    apps: createAppRepo(db),
    apiKeys: createApiKeyRepo(db),
    agents: createAgentRepo(db),
    conversations: createConversationRepo(db),
    turns: createTurnRepo(db),
    items: createItemRepo(db),
    ledger: createLedgerRepo(db),
    idempotency: createIdempotencyRepo(db),
    queuedInputs: createQueuedInputRepo(db),
    responses: createResponseRepo(db),
    resources: createResourceRepo(db),
    secrets: createSecretRepo(db),
    sessions: createSessionRepo(db),
  };
}

/**
 * A `Store` over an already migrated database. The store owns `db`: `close()` destroys it.
 *
 * Inside `transaction(work)` use only the `tx` repositories: SQLite and PGlite have a single
 * connection, which the transaction holds, so a call through the outer store would wait on
 * it forever.
 */
export function createKyselyStore(db: Kysely<Database>): Store {
  return {
    ...createRepositories(db),
    transaction(work) {
      return db.transaction().execute((trx) => work(createRepositories(trx)));
    },
    close() {
      return db.destroy();
    },
  };
}
