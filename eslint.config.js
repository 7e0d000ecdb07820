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

// Which src-main folder may import which (docs/architecture.md §3), lowest layer first: a folder
// imports itself, src-shared and the folders before it, never one after it. src-main/testing/ is
// for tests only, so nothing lists it. Tests, benches, test helpers and the test doubles in
// src-main/*/testing/ are exempt: they assemble whatever they attack.
const layerOrder = ['home', 'store', 'keys', 'llm', 'audit', 'aip', 'aap', 'alignment', 'silas', 'approvals', 'mcp', 'review', 'control', 'app'];
const below = (folder) => layerOrder.slice(0, layerOrder.indexOf(folder));
const layers = [
  ...layerOrder.slice(1).map((folder) => ({ dir: folder, allow: below(folder), fix: 'move the code down to the layer that needs it, or let src-main/app/ pass it in' })),
  { dir: 'cli', allow: layerOrder, fix: 'the CLI sits on top; it never needs the desktop shell' },
  // Commands stay thin: what they need of the keyring and the database is composed in app/.
  {
    dir: 'cli/commands',
    allow: ['cli', ...layerOrder.filter((folder) => folder !== 'store' && folder !== 'keys')],
    fix: 'a command gets its ledger, keyring-backed signer, runtime and database checks from src-main/app/ (e.g. app/cli-keyring.ts), never from store/ or keys/; add a small function there',
  },
  { dir: 'electron', allow: ['home', 'control', 'app'], fix: 'the shell gets the runtime from src-main/app/' },
  { dir: 'preload', allow: [], fix: 'the preload bridge imports src-shared only' },
];
// Imports the layering does not allow yet, each to be removed by the move named beside it
// (listed in docs/architecture.md §3). The value is the exact target, so nothing else slips in.
const layerExceptions = {
  // Pure helpers the audit repository reuses; they belong in src-shared/ (GENESIS_HASH and EntryBody).
  'src-main/store/repositories/audit-repository.ts': ['audit/chain.js'],
};
// The shell's test doubles (electron/testing/) keep the shell's right to import electron.
const shellDirs = ['electron', 'preload'];
const layerIgnores = (dir) => (shellDirs.includes(dir) ? testFiles : [...testFiles, 'src-main/*/testing/**']);
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * A relative import from `ups` folders below src-main/ that lands in a folder (or file) not in
 * `allow`. Counting `../` exactly keeps nested namesakes (silas/review/, silas/store/) apart from
 * the top-level folders; escaping further (`../../src-shared/`) is never matched.
 */
function layerPattern(ups, allow, dir, fix) {
  const allowed = allow.map((target) => (target.endsWith('.js') ? `${escapeRegex(target)}$` : `${target}/`));
  const named = allow.filter((target) => !target.endsWith('.js'));
  return {
    regex: `^(?:\\.\\./){${ups}}(?!\\.\\./)${allowed.length > 0 ? `(?!(?:${allowed.join('|')}))` : ''}`,
    message: `src-main/${dir}/ may import ${named.length > 0 ? `only ${named.map((n) => `${n}/`).join(', ')} of src-main` : 'nothing of src-main'} (docs/architecture.md §3): ${fix}.`,
  };
}
const layerPaths = (dir) => (dir === 'store' ? [electronOnlyInShell] : shellDirs.includes(dir) ? [sqliteOnlyInStore] : [electronOnlyInShell, sqliteOnlyInStore]);
const layerRules = (dir, ups, allow, fix) => ({ 'no-restricted-imports': ['error', { paths: layerPaths(dir), patterns: [layerPattern(ups, [dir.split('/')[0], ...allow], dir, fix)] }] });
const MAX_DEPTH = 5;
const layerConfigs = [
  ...layers.flatMap(({ dir, allow, fix }) =>
    Array.from({ length: MAX_DEPTH }, (_, extra) => ({
      files: [`src-main/${dir}/${'*/'.repeat(extra)}*.ts`],
      ignores: layerIgnores(dir),
      rules: layerRules(dir, dir.split('/').length + extra, allow, fix),
    })),
  ),
  ...Object.entries(layerExceptions).map(([file, targets]) => {
    const parts = file.split('/').slice(1);
    const layer = layers.filter(({ dir }) => file.startsWith(`src-main/${dir}/`)).at(-1);
    return { files: [file], rules: layerRules(layer.dir, parts.length - 1, [...layer.allow, ...targets], layer.fix) };
  }),
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
  ...layerConfigs,
  {
    files: ['src-main/electron/**/*.test.ts', 'src-main/preload/**/*.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
