#!/usr/bin/env node
// Builds the JavaScript that `silas` runs (bin/silas.js), so no TypeScript is compiled when an MCP
// client spawns `silas proxy` or a person types a command (docs/architecture.md §6). `npm install`
// and `npm ci` run it through `prepare` (scripts/prestart.js); by hand: `npm run build:cli`.
//
// Output: out/cli/main.js, one module per command (loaded lazily by the command registry), the
// chunks they share, source maps (NODE_OPTIONS=--enable-source-maps maps stacks to the sources;
// off by default, since it costs every start) and build.json: the source files the build read
// and when it started. bin/silas.js runs the build only while none of those files is newer, so a
// developer editing src-main never runs stale code; it falls back to tsx instead. bin/silas.js
// imports buildState() from here at every start, so this module imports esbuild only to build.
import { mkdirSync, renameSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const OUT_DIR = join(ROOT, 'out', 'cli');
export const MANIFEST = 'build.json';

// Native addons load their .node files relative to their own package, electron is optional (its
// package exports the path of a binary), and ws require()s its optional native helpers inside a
// try; they stay in node_modules and load at run time as they do under tsx. Everything else — our
// sources and pure-JS dependencies — is bundled.
const EXTERNAL = ['better-sqlite3', 're2', '@napi-rs/keyring', 'electron', 'ws', 'bufferutil', 'utf-8-validate'];

const toPosix = (path) => path.split(sep).join('/');

/**
 * main.ts and each module the command registry imports, so a command is its own file
 * (out/cli/proxy.js) that the registry's import() loads only when that command runs.
 */
function entryPoints() {
  const registry = readFileSync(join(ROOT, 'src-main/cli/commands/registry.ts'), 'utf8');
  const commands = [...registry.matchAll(/import\('\.\/([\w-]+)\.js'\)/g)].map((match) => `src-main/cli/commands/${match[1]}.ts`);
  if (commands.length === 0) throw new Error('src-main/cli/commands/registry.ts: no `import(\'./<command>.js\')` found; the build needs one per command');
  // The chain verifier's, the policy checker's and the WAL checkpointer's worker threads load their own files
  // (src-main/audit/chain-verifier.ts, src-main/aip/trial/policy-checker.ts, src-main/store/wal-checkpointer.ts), so they are entries too.
  return ['src-main/cli/main.ts', ...commands, 'src-main/audit/verify-worker.ts', 'src-main/aip/trial/policy-check-worker.ts', 'src-main/store/wal-checkpoint-worker.ts'];
}

/**
 * Code that finds files beside itself (`new URL('../../out/cockpit/', import.meta.url)`) must
 * keep finding them after it moves into out/cli/: each source file's `import.meta.url` becomes
 * the URL of that source file, computed from the bundle's own location so the checkout can move.
 */
const sourceUrls = {
  name: 'silas-source-urls',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const fromBundle = JSON.stringify(toPosix(relative(OUT_DIR, args.path)));
      return { contents: text.replaceAll('import.meta.url', `new URL(${fromBundle}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

/**
 * 'fresh', 'missing' or 'stale': whether out/cli may run in place of the sources. Stale when any
 * source the build read changed after the build started, or is gone; a new file counts too,
 * since something the build read must have changed to import it.
 */
export function buildState() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(OUT_DIR, MANIFEST), 'utf8'));
  } catch {
    return 'missing';
  }
  if (!Number.isFinite(manifest?.builtAt) || !Array.isArray(manifest.inputs)) return 'missing';
  for (const input of manifest.inputs) {
    try {
      if (statSync(join(ROOT, input)).mtimeMs >= manifest.builtAt) return 'stale';
    } catch {
      return 'stale';
    }
  }
  return 'fresh';
}

/** Builds out/cli; returns the manifest it wrote. Throws (and leaves no manifest) on failure. */
export async function buildCli() {
  // Remove the old build first: until the new manifest is written, bin/silas.js sees no build
  // and runs the sources, never a mix of old and new chunks.
  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(OUT_DIR, { recursive: true });
  const { build } = await import('esbuild');
  const builtAt = Date.now();
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: entryPoints(),
    outdir: OUT_DIR,
    // Flat output: every file sits in out/cli/, which the source-URL rewrite above relies on.
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // ES module builds first: some packages' `main` is UMD, whose require() esbuild cannot follow.
    mainFields: ['module', 'main'],
    sourcemap: true,
    external: EXTERNAL,
    // Bundled CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __silasCreateRequire } from 'node:module'; const require = __silasCreateRequire(import.meta.url);" },
    plugins: [sourceUrls],
    // The @main/@shared path aliases are read from here (docs/architecture.md §4).
    tsconfig: 'tsconfig.node.json',
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs)
    .filter((input) => !input.includes('node_modules/'))
    .sort();
  const manifest = { builtAt, inputs };
  const file = join(OUT_DIR, MANIFEST);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
  return manifest;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const manifest = await buildCli();
    console.log(`silas: built out/cli from ${manifest.inputs.length} source files`);
  } catch (error) {
    console.error(`silas: building out/cli failed: ${error.message}`);
    process.exit(1);
  }
}
