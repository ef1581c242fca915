import { afterAll, beforeAll } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import type { StoreOptions } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';

/**
 * The backends every conformance test runs against. Both are in memory; PGlite stands in for
 * Postgres (same SQL dialect, same error codes).
 */
export interface StoreBackend {
  name: string;
  options: StoreOptions;
}

export const backends: StoreBackend[] = [
  { name: 'sqlite', options: { kind: 'sqlite', filename: ':memory:' } },
  { name: 'pglite', options: { kind: 'pglite' } },
];

export function openBackend(backend: StoreBackend): Promise<Store> {
  return openStore(backend.options);
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
