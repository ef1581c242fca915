import { defineConfig } from 'vite';

// The approval console: a Preact single-page app, served by Baton under /console.
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false },
  logLevel: 'warn',
});
