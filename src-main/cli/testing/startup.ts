import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * Test and benchmark support for the `silas` start-up (bin/silas.js, scripts/build-cli.js): a
 * private checkout to build, time and touch without disturbing the repository or being disturbed
 * by edits made to it meanwhile. It shares the repository's node_modules.
 */

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * What `silas` needs to run and to be built: its bin, build script, sources, package.json, and the
 * tsconfig files the build and tsx read the @main/@shared path aliases from.
 */
const CHECKOUT_PARTS = ['bin/silas.js', 'scripts/build-cli.js', 'src-main', 'src-shared', 'package.json', 'tsconfig.json', 'tsconfig.base.json', 'tsconfig.node.json'];

/** Copies the working tree as it is now into `root`; returns the copy's bin/silas.js. */
export function copyCheckout(root: string): string {
  for (const part of CHECKOUT_PARTS) cpSync(join(REPO, part), join(root, part), { recursive: true, filter: (src) => !src.includes('node_modules') });
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  return join(root, 'bin/silas.js');
}

/** Extracts commit `ref` into `root` with `git archive` (no change to the repository's state). */
export function extractCommit(root: string, ref: string): string {
  mkdirSync(root, { recursive: true });
  execFileSync('sh', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'sh', REPO, ref, root]);
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  return join(root, 'bin/silas.js');
}

/** Runs the copy's scripts/build-cli.js; throws with its output when the build fails. */
export function buildCopy(root: string): void {
  execFileSync(process.execPath, [join(root, 'scripts/build-cli.js')], { stdio: ['ignore', 'ignore', 'pipe'] });
}
