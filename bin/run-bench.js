#!/usr/bin/env node
// `npm run bench`: runs every *.bench.ts under src-main/ in its own process, one after the
// other (the machine has two cores; parallel runs would measure each other). Each benchmark
// prints one JSON line per figure: {"name","unit","value",…}.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filter = process.argv[2];

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    return statSync(path).isDirectory() ? find(path) : name.endsWith('.bench.ts') ? [path] : [];
  });
}

let failed = 0;
for (const file of find(join(root, 'src-main')).sort()) {
  if (filter && !file.includes(filter)) continue;
  const run = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) {
    failed += 1;
    console.error(`bench: ${relative(root, file)} exited ${run.status}`);
  }
}
process.exit(failed ? 1 : 0);
