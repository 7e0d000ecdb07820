import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A home under `dir` (resolved, so no symlink in it) with `~/.ssh/id_rsa` and a working
 * directory `~/project/src` to run protected-path checks from.
 */
export function homeWithProject(dir: string): { root: string; home: string; cwd: string } {
  const root = realpathSync(dir);
  const home = join(root, 'home', 'u');
  const cwd = join(home, 'project');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE');
  mkdirSync(join(cwd, 'src'), { recursive: true });
  return { root, home, cwd };
}
