// The layer table of src-main/ (docs/architecture.md §3), written as VS Code writes its layers: for
// each folder, the folders it may import. A folder always imports itself and src-shared/; anything
// else must be listed. The table is a DAG (scripts/lint/layers.test.ts checks it), so siblings stay
// blind to each other unless an edge says why, and aap/ stays the AAP protocol and nothing else.
// Enforced by the ESLint rule in layer-rule.js; `node scripts/lint/import-graph.js` measures the
// edges the code has.
import { isTestOnly, resolveImport } from './resolve.js';

/** The platform: services every product builds on, lowest first. */
const PLATFORM = ['home', 'store', 'keys', 'llm', 'audit', 'approval', 'sandbox'];
/** The products on the platform; they import the platform, each other only by a listed edge. */
const PRODUCTS = ['aip', 'aap', 'alignment', 'mcp', 'silas', 'ilp'];
/** Adapters: the only places where one product reaches another's insides (rows below). */
const ADAPTERS = ['mcp/silas-tools'];
const ABOVE_PRODUCTS = [...PLATFORM, ...PRODUCTS, ...ADAPTERS];

/**
 * folder (under src-main/) -> { may: folders it may import, fix: what to do instead }. A nested
 * folder (`cli/commands`) is its own row: its files follow that row, and the folders around it
 * reach it only if their row lists it. An entry may name a subfolder of another row (`aip/dlp`):
 * then only that subfolder is allowed.
 */
export const LAYERS = {
  // Platform.
  home: { may: [], fix: 'home/ is a leaf (paths, resolveHome, the runtime lock): it imports node and src-shared/ only' },
  store: { may: ['home'], fix: 'store/ holds SQL and nothing above it: take the value as a parameter instead' },
  keys: { may: ['home', 'store'], fix: 'keys/ sits below every service: let the caller pass what it needs' },
  llm: { may: ['home', 'keys'], fix: 'model access needs only the keyring and the home: let the caller pass the rest' },
  audit: { may: ['home', 'store', 'keys'], fix: 'the audit chain sits below every service that records: let the caller pass the rest' },
  approval: { may: ['home', 'store', 'keys', 'audit'], fix: 'the token engine signs subjects {kind, id, hash} that callers hash themselves: it knows no product' },
  sandbox: { may: ['home'], fix: 'the sandbox (bubblewrap, cgroups, limits) knows no product: take the grants as parameters' },
  // Products.
  aap: { may: [], fix: 'aap/ is the Alignment protocol only (cards, traces, verification, drift): pure code over src-shared/; the runtime side belongs in alignment/' },
  aip: { may: PLATFORM, fix: 'the policy engine knows no other product: move the shared part to a platform layer or src-shared/' },
  alignment: {
    // The recorder turns decisions into AP-Traces (aap/); cards are derived from AIP policies (aip/).
    may: [...PLATFORM, 'aap', 'aip'],
    fix: 'alignment/ uses aap/ and the policies of aip/ only: move the shared part to a platform layer or src-shared/',
  },
  // The proxy enforces AIP policies, client entries are wrapped with them, egress checks their hosts.
  mcp: { may: [...PLATFORM, 'aip'], fix: 'mcp/ knows aip/ and the platform only; what it needs of the kernel goes through the adapter mcp/silas-tools/' },
  // The adapter offering the connected servers to Silas as tools: the kernel's tool interface
  // (silas/executor/) and the servers' default cards (alignment/).
  'mcp/silas-tools': { may: [...PLATFORM, 'aip', 'mcp', 'silas', 'alignment'], fix: 'the adapter joins mcp/ to the kernel; everything else stays in mcp/ or silas/' },
  // The InsightLoop Protocol (spec 004): its wire codec, constitution and composition, on the platform.
  // Slices and specialists' answers are scanned with the same injection detector as tool output.
  ilp: {
    may: [...PLATFORM, 'aip/detect'],
    fix: "ilp/ knows the platform and aip/detect/ only (slices and specialists' answers are scanned with the same injection detector as tool output): what else it needs of another product comes through an adapter or src-shared/",
  },
  // The content gates reuse AIP's secret patterns rather than keep a second list.
  silas: { may: [...PLATFORM, 'aip/dlp', 'aip/detect'], fix: 'the kernel knows the platform, aip/dlp/ and aip/detect/ only: a product reaches it through an adapter (mcp/silas-tools/)' },
  // Deciding sits above what it decides on; products never import it.
  review: { may: ABOVE_PRODUCTS, fix: 'review/ decides on products; it is never imported by them: pass an asker port in from app/' },
  // Above.
  control: { may: [...ABOVE_PRODUCTS, 'review'], fix: 'the control plane reaches services through HandlerServices interfaces that app/ fills in' },
  app: { may: [...ABOVE_PRODUCTS, 'review', 'control'], fix: 'app/ is the composition root: it never needs the CLI or the desktop shell' },
  cli: { may: [...ABOVE_PRODUCTS, 'review', 'control', 'app', 'cli/commands'], fix: 'the CLI sits on top; it never needs the desktop shell' },
  'cli/commands': {
    may: [...ABOVE_PRODUCTS.filter((folder) => folder !== 'store' && folder !== 'keys'), 'review', 'control', 'app', 'cli'],
    fix: 'a command gets its ledger, keyring-backed signer, secrets and database checks from its CliContext (src-main/app/cli-context.ts), never from store/ or keys/: add what it needs there',
  },
  electron: { may: ['home', 'control', 'app'], fix: 'the shell gets the runtime from src-main/app/' },
  preload: { may: [], fix: 'the preload bridge imports src-shared/ only' },
};

/**
 * Imports the table does not allow yet, by exact file and exact target (no extension), each with
 * the reason it stands and the move that removes it (docs/architecture.md §3).
 */
export const EXCEPTIONS = [
  {
    file: 'src-main/store/repositories/audit-repository.ts',
    target: 'src-main/audit/chain',
    why: 'pure helpers (GENESIS_HASH, EntryBody) that belong in src-shared/',
  },
  { file: 'src-main/app/version.ts', target: 'package', why: 'the version the CLI and the cockpit show is the package\'s own' },
];

const under = (path, folder) => path === folder || path.startsWith(`${folder}/`);
const KEYS = Object.keys(LAYERS).sort((a, b) => b.length - a.length);

/** The table row a path under src-main/ falls in (most specific first), or null. */
export function folderOf(path) {
  if (!path.startsWith('src-main/')) return null;
  const inner = path.slice('src-main/'.length);
  return KEYS.find((key) => under(inner, key)) ?? null;
}

const withoutExtension = (path) => path.replace(/\.(js|ts|tsx|json)$/, '');

/**
 * Why the import of `specifier` from `file` (both repository-relative) breaks the layers, or null
 * when it is allowed. Tests, benches and `testing/` folders are exempt.
 */
export function checkImport(file, specifier) {
  if (!file.startsWith('src-main/') || isTestOnly(file)) return null;
  const target = resolveImport(file, specifier);
  if (target === null) return null;
  const at = `${file} imports ${target}`;
  if (isTestOnly(target)) return `${at}, a test helper: production code never imports tests, benches or a testing/ folder (docs/architecture.md §3). Move what it needs out of the test helper.`;
  if (under(target, 'src-shared')) return null;
  if (EXCEPTIONS.some((exception) => exception.file === file && exception.target === withoutExtension(target))) return null;
  const from = folderOf(file);
  if (from === null) return `${file} is in no row of the layer table: add its folder to LAYERS in scripts/lint/layers.js and docs/architecture.md §3.`;
  const row = LAYERS[from];
  const to = folderOf(target);
  const inner = target.slice('src-main/'.length);
  const allowed = to !== null && [from, ...row.may].some((entry) => under(inner, entry) && under(entry, to));
  if (allowed) return null;
  const may = row.may.length > 0 ? row.may.map((folder) => `${folder}/`).join(', ') : 'nothing else of src-main';
  return `${at}, but src-main/${from}/ may import only itself, src-shared/ and ${may} (docs/architecture.md §3, scripts/lint/layers.js). Fix: ${row.fix}.`;
}
