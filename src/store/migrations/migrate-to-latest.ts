import { Migrator } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './migration-dialect.ts';
import { migrationsFor } from './migrations.ts';

/** Applies every pending migration; throws (naming the failed one) if any fails. */
export async function migrateToLatest(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  const migrations = migrationsFor(dialect);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}
