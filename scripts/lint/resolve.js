// Where an import lands, for the layer rule (layers.js) and the import-graph script: the path is
// resolved against the importing file (or through the @main/@shared aliases), never judged by
// counting `../`, so a nested namesake (silas/work/ beside a top-level work/) cannot be confused
// with a top-level folder. docs/architecture.md §3.
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The path aliases of tsconfig.base.json, vitest, vite and esbuild: prefix -> folder under ROOT. */
const ALIASES = { '@main/': 'src-main/', '@shared/': 'src-shared/' };

const toPosix = (path) => path.split(sep).join('/');

/** The repository-relative posix path an import specifier points at, or null for a package. */
export function resolveImport(fromFile, specifier, root = ROOT) {
  for (const [alias, folder] of Object.entries(ALIASES)) {
    if (specifier.startsWith(alias)) return folder + specifier.slice(alias.length);
  }
  if (!specifier.startsWith('.')) return null;
  return toPosix(relative(root, resolve(dirname(resolve(root, fromFile)), specifier)));
}

/** The repository-relative posix path of a file ESLint lints (absolute or relative to cwd). */
export const repoPath = (file, root = ROOT) => toPosix(relative(root, resolve(file)));

/**
 * Tests, benches and everything in a `testing/` folder assemble whatever they attack, so the
 * layers do not apply to them; they are recognised by those names only.
 */
export const isTestOnly = (path) => /\.(test|bench)\.[cm]?[jt]sx?$/.test(path) || /(^|\/)testing\//.test(path);
