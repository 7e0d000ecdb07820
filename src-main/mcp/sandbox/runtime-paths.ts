import { accessSync, closeSync, constants, existsSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { isWithin } from '../../sandbox/paths.js';

/*
 * What a governed server's own program needs to run inside its sandbox (docs/mcp-sandbox.md "The
 * program's own files"): the command resolved as the kernel would run it, the interpreter named by
 * its `#!` line, and the folders their packages live in (a node_modules tree, a virtualenv, a
 * package's root). Found from the command itself, so a person does not have to list them; all
 * mounted read-only.
 */

/** Mounted for every sandbox already (bwrap-args.ts), so nothing below them is added again. */
export const SYSTEM_TREES = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

class ServerCommandError extends Error {}

export interface ResolvedCommand {
  /** The command as the kernel runs it: absolute, symlinks resolved. */
  program: string;
  /** The `#!` interpreter (absolute, real) when the program is a script, else null. */
  interpreter: string | null;
  /** Read-only folders the program needs outside the system trees. */
  runtime: string[];
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `name` through PATH as execvp would, or a path with a slash against `cwd`. */
function findOnPath(name: string, pathVariable: string | undefined, cwd: string): string | null {
  if (name.includes('/')) {
    const candidate = isAbsolute(name) ? name : resolve(cwd, name);
    return executable(candidate) ? candidate : null;
  }
  for (const dir of (pathVariable ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(isAbsolute(dir) ? dir : resolve(cwd, dir), name);
    if (executable(candidate)) return candidate;
  }
  return null;
}

/** The interpreter and its first argument from a `#!` line, or null for a binary. */
function readShebang(file: string): { interpreter: string; argument: string | null } | null {
  const buffer = Buffer.alloc(256);
  const fd = openSync(file, 'r');
  let length: number;
  try {
    length = readSync(fd, buffer, 0, buffer.length, 0);
  } finally {
    closeSync(fd);
  }
  if (length < 2 || buffer[0] !== 0x23 || buffer[1] !== 0x21) return null;
  const line = buffer.subarray(2, length).toString('utf8').split('\n')[0]!.trim();
  const [interpreter, ...rest] = line.split(/\s+/);
  if (!interpreter) return null;
  return { interpreter, argument: rest.length > 0 ? rest.join(' ') : null };
}

function isSystem(path: string): boolean {
  return SYSTEM_TREES.some((tree) => isWithin(path, tree));
}

function ancestorWith(start: string, marker: string, stopAt: number): string | null {
  for (let dir = start, steps = 0; steps < stopAt; dir = dirname(dir), steps += 1) {
    if (existsSync(join(dir, marker))) return dir;
    if (dir === dirname(dir)) break;
  }
  return null;
}

/**
 * The folder a program file belongs to: the outermost node_modules on its path (its
 * dependencies are hoisted there), else its virtualenv (pyvenv.cfg), else its package root
 * (package.json or pyproject.toml, up to 6 levels), else its own folder.
 */
function runtimeRoot(file: string): string | null {
  if (isSystem(file)) return null;
  const nodeModules = file.indexOf(`${sep}node_modules${sep}`);
  if (nodeModules !== -1) return file.slice(0, nodeModules + `${sep}node_modules`.length);
  const start = dirname(file);
  return ancestorWith(start, 'pyvenv.cfg', 4) ?? ancestorWith(start, 'package.json', 6) ?? ancestorWith(start, 'pyproject.toml', 6) ?? start;
}

/**
 * A runtime root may not expose what the sandbox hides: when it contains a forbidden path (a
 * script kept directly in the home directory, a package root above the data home), only the
 * program's own folder is used, and failing that the file alone.
 */
function narrowed(root: string, file: string, forbidden: readonly string[]): string {
  const exposes = (dir: string) => forbidden.some((path) => isWithin(path, dir));
  if (!exposes(root)) return root;
  const folder = dirname(file);
  return exposes(folder) ? file : folder;
}

/**
 * Resolves the server command and what it needs. `args` that name existing files (a script given
 * to an interpreter: `node server.js`, `python -m` excepted) count as program files too.
 */
export function resolveServerCommand(command: string, args: readonly string[], options: { cwd: string; pathVariable: string | undefined; forbidden: readonly string[] }): ResolvedCommand {
  const found = findOnPath(command, options.pathVariable, options.cwd);
  if (found === null) {
    throw new ServerCommandError(
      command.includes('/')
        ? `the server command "${command}" does not exist or is not executable; check the path`
        : `the server command "${command}" was not found on PATH (${options.pathVariable ?? 'unset'}); give its full path`,
    );
  }
  const program = realpathSync(found);
  const files = [found, program];
  let interpreter: string | null = null;
  const shebang = readShebang(program);
  if (shebang !== null) {
    const viaEnv = /(^|\/)env$/.test(shebang.interpreter);
    const name = viaEnv ? (shebang.argument ?? '').split(/\s+/).find((word) => word !== '' && !word.startsWith('-') && !word.includes('=')) : shebang.interpreter;
    const located = name ? findOnPath(name, viaEnv ? options.pathVariable : undefined, options.cwd) : null;
    if (located === null) throw new ServerCommandError(`the interpreter "${name ?? shebang.interpreter}" named by the first line of ${program} cannot be resolved${viaEnv ? ' on PATH' : ''}; install it or give the server command with its interpreter`);
    interpreter = realpathSync(located);
    files.push(located, interpreter);
  }
  for (const arg of args) {
    if (arg.startsWith('-') || arg.includes('\0')) continue;
    const candidate = resolve(options.cwd, arg);
    try {
      if (statSync(candidate).isFile()) files.push(candidate, realpathSync(candidate));
    } catch {
      // Not a file: an option value, a directory, a URL.
    }
  }
  const runtime = new Set<string>();
  for (const file of files) {
    const root = runtimeRoot(file);
    if (root !== null) runtime.add(narrowed(root, file, options.forbidden));
    // An interpreter installed outside the system (nvm, pyenv) brings its prefix: bin/ and lib/.
    if (file === interpreter || (interpreter === null && file === program)) {
      const prefix = dirname(dirname(file));
      if (!isSystem(file) && prefix !== dirname(prefix) && /\/bin$/.test(dirname(file))) runtime.add(narrowed(prefix, file, options.forbidden));
    }
  }
  return { program, interpreter, runtime: [...runtime].sort() };
}
