#!/usr/bin/env node
// The `baton` command (`npx baton`, `npm run baton`, and `npm start`, which is `baton serve`). It runs
// the compiled server in dist/ when that is current with the sources (`npm run build`, which
// `npm install` runs). Otherwise it says why and runs the TypeScript sources through tsx, which
// works the same but starts seconds slower and holds more memory: a checkout that was edited or
// pulled without a rebuild still runs what its sources say, never an older build.
import { buildState } from './build-state.mjs';

const state = buildState();
if (state.current) {
  // Stack traces name dist/ files. dist/ has source maps, but reading them at every start costs about
  // 10% of the start-up and 6 MB: for src/ lines, start with NODE_OPTIONS=--enable-source-maps.
  await import('../dist/cli/main.js');
} else {
  console.error(
    `baton: running the TypeScript sources through tsx (slower start) because ${state.reason}; ` +
      '`npm run build` compiles them to dist/.',
  );
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
