/**
 * Baton's layering (docs/architecture.md), checked in `npm test`:
 *   server → faces → engine, resources → store → domain; engine → models and its ports;
 *   resources implement the engine's ToolProvider port over the tool runtimes. Dependencies point
 *   downward only.
 */
const SQL_DRIVERS = '^(better-sqlite3|pg|kysely|@electric-sql/pglite|kysely-pglite-dialect)($|/)';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle ties parts together so neither can change alone.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-imports-nothing-of-baton',
      severity: 'error',
      comment: 'domain/ is the ground floor: records, ids, JSON and content types, errors, the clock.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'store-below-engine',
      severity: 'error',
      comment: 'The store keeps rows; it knows no rule, face, resource, server or tool.',
      from: { path: '^src/store/' },
      to: { path: '^src/(engine|faces|resources|server|tools|models|cli)/' },
    },
    {
      name: 'engine-knows-no-face',
      severity: 'error',
      comment: 'The engine owns the rules and speaks no dialect: no face, server, resource service or tool runtime.',
      from: { path: '^src/engine/' },
      to: { path: '^src/(faces|server|resources|tools|cli)/' },
    },
    {
      name: 'engine-no-http-or-sql',
      severity: 'error',
      comment: 'No HTTP framework and no SQL driver in the engine: it talks to the store through its interfaces.',
      from: { path: '^src/engine/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'core'],
        path: `^(fastify|${SQL_DRIVERS.slice(2)}`,
      },
    },
    {
      name: 'faces-only-translate',
      severity: 'error',
      comment:
        'A face parses, calls the engine or the resources, and renders: never the store, the server or a tool runtime.',
      from: { path: '^src/faces/' },
      to: { path: '^src/(store|server|tools|models|cli)/' },
    },
    {
      name: 'faces-use-the-engine-entry',
      severity: 'error',
      comment: 'Faces reach the engine through its one public entry, src/engine/index.ts.',
      from: { path: '^src/faces/' },
      to: { path: '^src/engine/', pathNot: '^src/engine/index[.]ts$' },
    },
    {
      name: 'resources-below-faces',
      severity: 'error',
      comment:
        "App resources sit below the faces and beside the engine: they use the domain, the store, the tool runtimes and the engine's entry and ports, never a face, the server or the engine's private parts.",
      from: { path: '^src/resources/' },
      to: { path: '^src/', pathNot: '^src/(resources|domain|store|tools)/|^src/engine/(index[.]ts$|ports/)' },
    },
    {
      name: 'tools-are-runtimes',
      severity: 'error',
      comment: "Tool runtimes import the domain and the engine's ToolProvider port only.",
      from: { path: '^src/tools/' },
      to: { path: '^src/', pathNot: '^src/(tools|domain)/|^src/engine/ports/' },
    },
    {
      name: 'models-below-engine',
      severity: 'error',
      comment: 'Model providers know the domain only.',
      from: { path: '^src/models/' },
      to: { path: '^src/', pathNot: '^src/(models|domain)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
