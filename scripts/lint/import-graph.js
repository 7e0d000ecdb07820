#!/usr/bin/env node
// Prints the folder -> folder import edges of production code under src-main/ (tests, benches and
// `testing/` folders left out), the measurement the layer table in layers.js was built from
// (docs/architecture.md §3). `--depth 2` groups by the first two folder levels instead of the
// table's folders; `--against-table` prints only the edges the table does not allow.
//   node scripts/lint/import-graph.js [--depth N] [--against-table]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkImport, folderOf } from './layers.js';
import { isTestOnly, resolveImport, ROOT } from './resolve.js';

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function* sources(dir) {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') && !isTestOnly(path)) yield path;
  }
}

/** Every import of production code under src-main/: [file, specifier, resolved target]. */
export function productionImports() {
  const found = [];
  for (const file of sources('src-main')) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      const target = resolveImport(file, specifier);
      if (target !== null) found.push([file, specifier, target]);
    }
  }
  return found;
}

const byDepth = (path, depth) => {
  if (!path.startsWith('src-main/')) return path.split('/')[0];
  const dirs = path.split('/').slice(1, -1);
  return dirs.slice(0, depth).join('/') || '(src-main)';
};

if (process.argv[1] && process.argv[1].endsWith('import-graph.js')) {
  const args = process.argv.slice(2);
  const depthAt = args.indexOf('--depth');
  const depth = depthAt >= 0 ? Number(args[depthAt + 1]) : null;
  const against = args.includes('--against-table');
  const edges = new Map();
  for (const [file, specifier, target] of productionImports()) {
    if (against && checkImport(file, specifier) === null) continue;
    const from = depth ? byDepth(file, depth) : folderOf(file);
    const to = depth ? byDepth(target, depth) : (folderOf(target) ?? target.split('/')[0]);
    if (from === to) continue;
    const key = `${from} -> ${to}`;
    const edge = edges.get(key) ?? { count: 0, example: `${file} -> ${specifier}` };
    edge.count += 1;
    edges.set(key, edge);
  }
  for (const [key, { count, example }] of [...edges].sort(([a], [b]) => a.localeCompare(b))) {
    console.log(`${key.padEnd(40)} ${String(count).padStart(4)}  e.g. ${example}`);
  }
}
