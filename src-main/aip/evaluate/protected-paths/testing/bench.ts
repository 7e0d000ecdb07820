import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary home with `~/.ssh` and a project (`src/`) to run checks from, as the proxy would. */
export function benchProject(prefix: string): { dir: string; home: string; project: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const home = join(dir, 'home');
  const project = join(home, 'project');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(project, 'src'), { recursive: true });
  return { dir, home, project };
}

/** Lines of source code, each naming a file (`./docs/fN.md`) that does not exist. */
export const SOURCE_LINES = Array.from({ length: 60 }, (_, i) => `export function f${i}(a: number): number { return a * ${i}; } // see ./docs/f${i}.md`);

/** write_file arguments with `n` lines of source code: the sized cases run from 1 KB to 4 MB. */
export function sourceFileArgs(n: number): { path: string; content: string } {
  return { path: 'src/big.ts', content: Array.from({ length: n }, (_, i) => SOURCE_LINES[i % SOURCE_LINES.length]).join('\n') };
}

/** run_command arguments with `n` units of shell: `cd`, a nested shell, a substitution. */
export function shellCommandArgs(n: number): { command: string } {
  return { command: Array.from({ length: n }, (_, i) => `cd src && bash -c 'cd ../lib && cat f${i}.txt' && cat $(echo docs)/r${i}.md; `).join('') };
}
