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

/**
 * The migrations this code knows that the database has not applied, by name (none when it is up
 * to date). One read of Kysely's migration table: cheap enough for a readiness probe.
 */
export async function pendingMigrations(db: Kysely<unknown>, dialect: MigrationDialect): Promise<string[]> {
  const migrations = migrationsFor(dialect);
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const known = await migrator.getMigrations();
  return known.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}
