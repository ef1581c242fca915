// ESLint (type-aware, through typescript-eslint) for the whole tree. Formatting is Prettier's job;
// these rules catch what the compiler does not: promises nobody awaits or that are passed where a
// plain function is expected, and focused tests left behind.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'data/**', '.tmp/**', 'bench/.tmp/**', 'coverage/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            '*.js',
            '.dependency-cruiser.cjs',
            'bin/*.mjs',
            'examples/*.mjs',
            'examples/*/*.js',
            'console/vite.config.ts',
          ],
        },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: {
        console: 'readonly',
        process: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
        },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-restricted-properties': [
        'error',
        ...['describe', 'it', 'test'].map((object) => ({
          object,
          property: 'only',
          message: 'A focused test silently skips the rest of the suite; remove .only.',
        })),
      ],
    },
  },
  {
    // Tests read loosely typed JSON answers; `any` there is deliberate and stays out of src.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // Pages of the examples run in a browser.
    files: ['examples/**/*.js'],
    languageOptions: { globals: { document: 'readonly', location: 'readonly', CSS: 'readonly', fetch: 'readonly' } },
  },
);
