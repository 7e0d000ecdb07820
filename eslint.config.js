import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './scripts/lint/layer-rule.js';

// The process boundaries of DESIGN §3, enforced: src-shared is pure; the renderer never reaches
// into the main process; only the desktop shell and the preload may import electron.
const bareBuiltins = ['fs', 'path', 'os', 'crypto', 'child_process', 'net', 'http', 'https', 'url', 'util', 'stream', 'events', 'worker_threads'];
const nodeBuiltins = ['node:*'];
const builtinPaths = (message) => bareBuiltins.map((name) => ({ name, message }));
const mainOnlyPackages = ['better-sqlite3', '@napi-rs/keyring', 'ws', 'tsx', 'tsx/*'];

// Layers inside src-main (docs/architecture.md §3). SQL lives only in src-main/store/: services hold
// a `SqliteDatabase` (store/transaction.ts) to hand to repositories. Tests, benches and test helpers
// may open databases directly, because they attack them.
const electronOnlyInShell = { name: 'electron', message: 'Only src-main/electron and src-main/preload may import electron (DESIGN §3).' };
const sqliteOnlyInStore = {
  name: 'better-sqlite3',
  message: 'SQL lives only in src-main/store/ (docs/architecture.md §3): add a method to a repository there, and pass `SqliteDatabase` from store/transaction.ts.',
};
// `SqliteDatabase` is opaque outside store/; only a repository unwraps it into a connection.
const connectionOnlyInStore = {
  regex: '(^|/)store/transaction(\\.js)?$',
  importNames: ['sqliteConnection', 'SqliteConnection'],
  message: 'A `SqliteDatabase` is opaque outside src-main/store/ (docs/architecture.md §3): hand it to a repository there instead of unwrapping it.',
};
// Exempt by these names only: test helpers live in a `testing/` folder of their area.
const testFiles = ['**/*.test.ts', '**/*.bench.ts', '**/testing/**'];
// Member calls that run SQL on something named like a connection (`db`, `this.db`, `ledger.db`).
// Matching by name keeps RegExp#exec, GateRunner#prepare and the like out of it.
const sqlMethods = '/^(prepare|exec|pragma|transaction)$/';
const sqlMessage = 'SQL runs only in src-main/store/ repositories (docs/architecture.md §3); for a transaction use inImmediateTransaction/inTransaction from store/transaction.ts.';
const sqlCalls = [
  { selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=${sqlMethods}][callee.object.type='Identifier'][callee.object.name=/^(db|database)$/]`, message: sqlMessage },
  { selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=${sqlMethods}][callee.object.type='MemberExpression'][callee.object.property.name=/^(db|database)$/]`, message: sqlMessage },
];

// Which src-main folder may import which: the layer table in scripts/lint/layers.js
// (docs/architecture.md §3), checked by the local rule `silas/layers`, which resolves each import
// (relative or through the @main/@shared aliases) and looks the two folders up in the table.
export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', 'test-results/', 'playwright-report/', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-restricted-imports': ['error', { paths: [electronOnlyInShell] }],
    },
  },
  {
    files: ['src-main/**/*.ts'],
    ignores: ['src-main/store/**', ...testFiles],
    rules: {
      'no-restricted-imports': ['error', { paths: [electronOnlyInShell, sqliteOnlyInStore], patterns: [connectionOnlyInStore] }],
      'no-restricted-syntax': ['error', ...sqlCalls],
    },
  },
  {
    files: ['src-shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'src-shared is pure TypeScript (DESIGN §3).' }, ...builtinPaths('src-shared must not import Node built-ins (DESIGN §3).')],
          patterns: [
            { group: nodeBuiltins, message: 'src-shared must not import Node built-ins (DESIGN §3).' },
            { group: mainOnlyPackages, message: 'src-shared must not import runtime packages (DESIGN §3).' },
            { group: ['**/src-main/**', '**/src-renderer/**', '@main/*', 'react', 'react-dom'], message: 'src-shared imports nothing runtime-specific (DESIGN §3).' },
          ],
        },
      ],
    },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'electron', message: 'The renderer talks to the runtime only through the preload bridge (DESIGN convention 2).' },
            ...builtinPaths('The renderer runs sandboxed in a browser context.'),
          ],
          patterns: [
            { group: ['**/src-main/**', '@main/*'], message: 'src-renderer never imports src-main (DESIGN §3).' },
            { group: nodeBuiltins, message: 'The renderer runs sandboxed in a browser context.' },
            { group: mainOnlyPackages, message: 'The renderer runs sandboxed in a browser context.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src-main/**/*.ts'],
    plugins: { silas: layersPlugin },
    rules: { 'silas/layers': 'error' },
  },
  {
    // The shell and the preload bridge are the only importers of electron (DESIGN §3).
    files: ['src-main/electron/**/*.ts', 'src-main/preload/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [sqliteOnlyInStore] }] },
  },
  {
    files: ['src-main/electron/**/*.test.ts', 'src-main/preload/**/*.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
