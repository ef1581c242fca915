import { afterEach, beforeEach } from 'vitest';
import { createTestDatabase, postgresUnavailable } from '../helpers/postgres-database.ts';
import type { BatonProcess } from './baton-process.ts';

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

/**
 * Gives each test of the enclosing describe a fresh database of `database`'s kind: `use` receives
 * its URL before the test; after it, the test's processes are killed, then the database dropped.
 */
export function freshDatabasePerTest(
  database: ProcessDatabase,
  processes: BatonProcess[],
  use: (databaseUrl: string | undefined) => void,
): void {
  let drop = async () => {};
  beforeEach(async () => {
    const opened = await database.open();
    use(opened.databaseUrl);
    drop = opened.drop;
  });
  afterEach(async () => {
    await Promise.all(processes.splice(0).map((baton) => baton.kill()));
    await drop();
  });
}
