#!/usr/bin/env node
// The `silas` command. Every MCP client spawns one `silas proxy` per server at launch, so the
// start must be cheap: this runs the JavaScript built at install (scripts/build-cli.js, from
// npm's `prepare`) and compiles nothing. When that build is missing, or any source file it was
// built from has changed since (a developer editing src-main), it runs the TypeScript sources
// through tsx instead: slower, never stale. SILAS_FROM_SOURCE=1 forces the sources.
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildState, OUT_DIR } from '../scripts/build-cli.js';

/** One line on an interactive stderr, once per stale build; MCP clients and pipes hear nothing. */
function hintStale() {
  if (!process.stderr.isTTY) return;
  try {
    closeSync(openSync(join(OUT_DIR, '.stale-hint'), 'wx'));
  } catch {
    return; // already said for this build, or out/cli is not writable
  }
  process.stderr.write('silas: out/cli is older than the sources, so they run through tsx (slower start); `npm run build:cli` rebuilds it.\n');
}

const state = process.env.SILAS_FROM_SOURCE === '1' ? 'forced' : buildState();
let main;
if (state === 'fresh') {
  ({ main } = await import('../out/cli/main.js'));
} else {
  if (state === 'stale') hintStale();
  const { register } = await import('tsx/esm/api');
  // The tsconfig with the @main/@shared path aliases, wherever the command was started from.
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.node.json', import.meta.url)) });
  ({ main } = await import('../src-main/cli/main.ts'));
}
const code = await main(process.argv.slice(2));
// Wait for stdout to drain before exiting, so piped output (audit export) is never cut off.
process.stdout.write('', () => process.exit(code));
