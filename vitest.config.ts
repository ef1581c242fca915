import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests use the SDK's source, so they never run against a stale build of packages/client.
    alias: { '@baton/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The suite starts real servers and databases; two cores, so keep the pool small.
    maxWorkers: 2,
  },
});
