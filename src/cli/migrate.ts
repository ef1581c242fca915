import { loadConfig } from '../server/config.ts';
import { storeOptionsFor } from '../server/start-baton.ts';
import { openStore } from '../store/open-store.ts';

/**
 * `baton migrate`: brings the database's schema up to date and exits, for deploy pipelines that
 * migrate before they roll replicas. `baton serve` migrates at start too; on PostgreSQL several
 * starters at once are safe (the migrator holds an advisory lock), so this step is optional.
 */
export async function runMigrate(): Promise<number> {
  const config = loadConfig();
  const store = await openStore(storeOptionsFor(config));
  await store.close();
  console.log(`Database schema is up to date (${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`}).`);
  return 0;
}
