import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, postgresUnavailable } from '../helpers/postgres-database.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { StoreOptions } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';

/**
 * The backends every conformance test runs against: SQLite and PGlite in memory, and a real
 * PostgreSQL server when the machine has one (always in CI), each store on a database of its own.
 */
export interface StoreBackend {
  name: string;
  options: StoreOptions;
}

export const backends: StoreBackend[] = [
  { name: 'sqlite', options: { kind: 'sqlite', filename: ':memory:' } },
  { name: 'pglite', options: { kind: 'pglite' } },
  // The URL is a placeholder: every store opened on this backend gets a new database.
  ...((await postgresUnavailable()) === null
    ? [{ name: 'postgres', options: { kind: 'postgres' as const, connectionString: '' } }]
    : []),
];

export async function openBackend(backend: StoreBackend): Promise<Store> {
  if (backend.options.kind !== 'postgres') return openStore(backend.options);
  const database = await createTestDatabase('baton_store');
  const store = await openStore({ ...backend.options, connectionString: database.url });
  const close = store.close.bind(store);
  return Object.assign(store, {
    close: async () => {
      await close();
      await database.drop();
    },
  });
}

/**
 * One store per describe block: a PGlite instance takes seconds to start, so tests share it
 * and stay independent by creating their own app (see `seedApp`). Tests of cross-app queries
 * (listDue, listStale) open a fresh store with `withFreshStore` instead.
 */
export function useSharedStore(backend: StoreBackend): () => Store {
  let store: Store | undefined;
  beforeAll(async () => {
    store = await openBackend(backend);
  });
  afterAll(async () => {
    await store?.close();
    store = undefined;
  });
  return () => {
    if (!store) throw new Error('store not open: call inside a test');
    return store;
  };
}

export async function withFreshStore<T>(backend: StoreBackend, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openBackend(backend);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
