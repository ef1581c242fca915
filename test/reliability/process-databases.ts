import { createTestDatabase, postgresUnavailable } from '../helpers/postgres-database.ts';

/**
 * The databases the reliability tests run `baton serve` on: SQLite in the workspace's data
 * directory, and a fresh PostgreSQL database when the machine has a server (always in CI).
 * `open()` gives the `databaseUrl` for `BatonProcess.start` (undefined: SQLite) and a cleanup.
 */
export interface ProcessDatabase {
  name: string;
  open(): Promise<{ databaseUrl: string | undefined; drop(): Promise<void> }>;
}

export async function processDatabases(): Promise<ProcessDatabase[]> {
  const sqlite: ProcessDatabase = {
    name: 'SQLite',
    open: async () => ({ databaseUrl: undefined, drop: async () => {} }),
  };
  if ((await postgresUnavailable()) !== null) return [sqlite];
  const postgres: ProcessDatabase = {
    name: 'PostgreSQL',
    open: async () => {
      const database = await createTestDatabase('baton_process');
      return { databaseUrl: database.url, drop: () => database.drop() };
    },
  };
  return [sqlite, postgres];
}
