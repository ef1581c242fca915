import type { Migration } from 'kysely';
import { createInitialMigration } from './0001-initial.ts';
import { createResponsesMigration } from './0002-responses.ts';
import { createItemGroupsMigration } from './0003-item-groups.ts';
import { createAppResourcesMigration } from './0004-app-resources.ts';
import { createConsoleIndexesMigration } from './0005-console-indexes.ts';
import { createKeyLifecycleMigration } from './0006-key-lifecycle.ts';
import { createIdempotencyLeasesMigration } from './0007-idempotency-leases.ts';
import { createServerCallClaimsMigration } from './0008-server-call-claims.ts';
import { createTurnLeasesMigration } from './0009-turn-leases.ts';
import { createCallTraceContextMigration } from './0010-call-trace-context.ts';
import { createToolWorkersMigration } from './0011-tool-workers.ts';
import { createWebhooksMigration } from './0012-webhooks.ts';
import { createDataLifecycleMigration } from './0013-data-lifecycle.ts';
import { createAppTombstonesMigration } from './0014-app-tombstones.ts';
import { createIdempotencyLinksMigration } from './0015-idempotency-links.ts';
import { createPartialLedgerIndexesMigration } from './0016-partial-ledger-indexes.ts';
import { createItemsWithoutAutoincrementMigration } from './0017-items-without-autoincrement.ts';
import type { MigrationDialect } from './migration-dialect.ts';

/**
 * Every migration, keyed by name (applied in name order). Listed in code rather than found
 * by scanning a folder so they are bundled and run the same under tsx, vitest and node.
 */
export function migrationsFor(dialect: MigrationDialect): Record<string, Migration> {
  return {
    '0001-initial': createInitialMigration(dialect),
    '0002-responses': createResponsesMigration(dialect),
    '0003-item-groups': createItemGroupsMigration(),
    '0004-app-resources': createAppResourcesMigration(dialect),
    '0005-console-indexes': createConsoleIndexesMigration(),
    '0006-key-lifecycle': createKeyLifecycleMigration(),
    '0007-idempotency-leases': createIdempotencyLeasesMigration(dialect),
    '0008-server-call-claims': createServerCallClaimsMigration(),
    '0009-turn-leases': createTurnLeasesMigration(),
    '0010-call-trace-context': createCallTraceContextMigration(),
    '0011-tool-workers': createToolWorkersMigration(),
    '0012-webhooks': createWebhooksMigration(dialect),
    '0013-data-lifecycle': createDataLifecycleMigration(),
    '0014-app-tombstones': createAppTombstonesMigration(),
    '0015-idempotency-links': createIdempotencyLinksMigration(),
    '0016-partial-ledger-indexes': createPartialLedgerIndexesMigration(),
    '0017-items-without-autoincrement': createItemsWithoutAutoincrementMigration(dialect),
  };
}
