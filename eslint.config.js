import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
const testFiles = ['**/*.test.ts', '**/*.bench.ts', '**/test-support.ts', '**/*-test-support.ts', 'src-main/testing/**'];
// Member calls that run SQL on something named like a connection (`db`, `this.db`, `ledger.db`).
// Matching by name keeps RegExp#exec, GateRunner#prepare and the like out of it.
const sqlMethods = '/^(prepare|exec|pragma|transaction)$/';
const sqlMessage = 'SQL runs only in src-main/store/ repositories (docs/architecture.md §3); for a transaction use inImmediateTransaction/inTransaction from store/transaction.ts.';
const sqlCalls = [
  { selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=${sqlMethods}][callee.object.type='Identifier'][callee.object.name=/^(db|database)$/]`, message: sqlMessage },
  { selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=${sqlMethods}][callee.object.type='MemberExpression'][callee.object.property.name=/^(db|database)$/]`, message: sqlMessage },
];

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
      'no-restricted-imports': ['error', { paths: [electronOnlyInShell, sqliteOnlyInStore] }],
      'no-restricted-syntax': ['error', ...sqlCalls],
    },
  },
  {
    // The data home is a leaf: everything may use it, it uses nothing of src-main.
    files: ['src-main/home/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronOnlyInShell, sqliteOnlyInStore],
          patterns: [{ regex: '^\\.\\./(?!\\.\\./src-shared/)', message: 'src-main/home/ is a leaf: it imports node and src-shared only (docs/architecture.md §3).' }],
        },
      ],
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
            { group: ['**/src-main/**', '**/src-renderer/**', 'react', 'react-dom'], message: 'src-shared imports nothing runtime-specific (DESIGN §3).' },
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
            { group: ['**/src-main/**'], message: 'src-renderer never imports src-main (DESIGN §3).' },
            { group: nodeBuiltins, message: 'The renderer runs sandboxed in a browser context.' },
            { group: mainOnlyPackages, message: 'The renderer runs sandboxed in a browser context.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src-main/electron/**/*.ts', 'src-main/preload/**/*.ts'],
    ignores: testFiles,
    rules: { 'no-restricted-imports': ['error', { paths: [sqliteOnlyInStore] }] },
  },
  {
    files: ['src-main/electron/**/*.test.ts', 'src-main/preload/**/*.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
