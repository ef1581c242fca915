import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { createTestDatabase, postgresUnavailable, type TestDatabase } from '../helpers/postgres-database.ts';
import { REPO_ROOT } from '../reliability/baton-process.ts';

const run = promisify(execFile);
const unavailable = await postgresUnavailable();
const databases: TestDatabase[] = [];

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase('baton_migrate');
  databases.push(database);
  return database;
}

async function appliedMigrations(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>('select name from kysely_migration order by name');
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe.skipIf(unavailable !== null)('PostgreSQL schema migrations', () => {
  afterAll(async () => {
    for (const database of databases.splice(0)) await database.drop();
  });

  it('lets several replicas start at once on an empty database: one migrates, all open', async () => {
    const database = await freshDatabase();
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => openStore({ kind: 'postgres', connectionString: database.url, poolSize: 2 })),
    );
    try {
      const applied = await appliedMigrations(database.url);
      expect(applied.length).toBeGreaterThanOrEqual(7);
      expect(new Set(applied).size).toBe(applied.length);
      expect(await stores[0]!.apps.listByProject('default')).toEqual(await stores[3]!.apps.listByProject('default'));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('`baton migrate` brings DATABASE_URL up to date and exits; a second run changes nothing', async () => {
    const database = await freshDatabase();
    const env = { ...process.env, DATABASE_URL: database.url, BATON_CONFIG: '' };
    const first = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'migrate'], {
      cwd: REPO_ROOT,
      env,
    });
    expect(first.stdout).toContain('Database schema is up to date (PostgreSQL)');
    const applied = await appliedMigrations(database.url);
    const second = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'migrate'], {
      cwd: REPO_ROOT,
      env,
    });
    expect(second.stdout).toContain('up to date');
    expect(await appliedMigrations(database.url)).toEqual(applied);
  }, 60_000);
});
