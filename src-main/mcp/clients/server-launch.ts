/*
 * Which MCP server package an entry's command line starts, whatever launches it: a package
 * runner that downloads it (`npx`, `uvx`, `uv run`), an interpreter given its script or module
 * (`node …/dist/index.js`, `python -m mcp_server_git`), or its installed bin. Only names are read
 * here; nothing is resolved on disk, so a guess is never mistaken for a fact about the file system.
 */

/** A runner that fetches the package when the server starts, so the sandbox must let it. */
export type Launcher = 'npx' | 'uvx';

export type Launch =
  | { kind: 'docker'; runner: string }
  | {
      kind: 'program';
      /** Names the package may go by (package, bin or module), the likeliest first. */
      names: string[];
      /** The server's own arguments, after the runner's and the interpreter's. */
      args: readonly string[];
      launcher: Launcher | null;
      /** `uv run --directory DIR`: the project uv syncs (and writes its .venv in) at start. */
      project?: string;
    };

const NPX_VALUE_FLAGS = new Set(['-p', '--package', '-c', '--call', '--registry', '--cache', '--userconfig', '-w', '--workspace']);
const UV_VALUE_FLAGS = new Set([
  '--from',
  '--with',
  '--with-editable',
  '--with-requirements',
  '--python',
  '-p',
  '--index',
  '--index-url',
  '--extra-index-url',
  '--default-index',
  '--constraints',
  '--overrides',
  '--cache-dir',
  '--directory',
  '--project',
  '--config-file',
  '--env-file',
  '--package',
]);
const NODE_VALUE_FLAGS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file', '--conditions', '-C']);

/** The last path segment, lower case, without a Windows launcher extension. */
function commandName(path: string): string {
  const last = path.split(/[\\/]/).pop() ?? path;
  return last.toLowerCase().replace(/\.(exe|cmd|bat|ps1)$/, '');
}

/** `@scope/name@1.2`, `name@latest`, `name==1.0`, `name[extra]>=2` → the bare name. */
function packageName(spec: string): string {
  if (spec.startsWith('@')) {
    const at = spec.indexOf('@', 1);
    return at > 0 ? spec.slice(0, at) : spec;
  }
  return /^[A-Za-z0-9._-]+/.exec(spec)?.[0] ?? spec;
}

/** Candidate names from a script or bin path, innermost first: `@scope/name` pairs and single segments. */
function namesFromPath(path: string): string[] {
  const segments = path.split(/[\\/]/).filter((s) => s !== '');
  const names: string[] = [];
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i]!.replace(/\.(exe|cmd|bat|ps1|js|mjs|cjs|py)$/i, '');
    if (i > 0 && segments[i - 1]!.startsWith('@')) names.push(`${segments[i - 1]}/${segment}`);
    names.push(segment);
  }
  return names;
}

/** Splits runner flags from the first positional argument; `--` ends the flags. */
function afterFlags(args: readonly string[], valueFlags: ReadonlySet<string>, onValue?: (flag: string, value: string) => void): number {
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return i + 1;
    if (!arg.startsWith('-') || arg === '-') return i;
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!valueFlags.has(flag)) continue;
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value !== undefined) onValue?.(flag, value);
  }
  return i;
}

function npx(args: readonly string[]): Launch {
  const packages: string[] = [];
  const at = afterFlags(args, NPX_VALUE_FLAGS, (flag, value) => {
    if (flag === '-p' || flag === '--package') packages.push(packageName(value));
  });
  const first = args[at];
  const names = [...packages, ...(first !== undefined ? [packageName(first)] : [])];
  return { kind: 'program', names, args: args.slice(at + 1), launcher: 'npx' };
}

function uvx(args: readonly string[], run: boolean): Launch {
  const from: string[] = [];
  let project: string | undefined;
  const at = afterFlags(args, UV_VALUE_FLAGS, (flag, value) => {
    if (flag === '--from') from.push(packageName(value));
    if (flag === '--directory' || flag === '--project') project = value;
  });
  const first = args[at];
  if (run && first !== undefined && /^python(\d+(\.\d+)*)?$/.test(commandName(first))) return python(args.slice(at + 1), 'uvx', project);
  const names = [...from, ...(first !== undefined ? [packageName(first)] : [])];
  return { kind: 'program', names, args: args.slice(at + 1), launcher: 'uvx', ...(project !== undefined ? { project } : {}) };
}

function python(args: readonly string[], launcher: Launcher | null, project?: string): Launch {
  const extras = project !== undefined ? { project } : {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-m' && args[i + 1] !== undefined) return { kind: 'program', names: [args[i + 1]!], args: args.slice(i + 2), launcher, ...extras };
    if (arg.startsWith('-m') && arg.length > 2) return { kind: 'program', names: [arg.slice(2)], args: args.slice(i + 1), launcher, ...extras };
    if (!arg.startsWith('-')) return { kind: 'program', names: namesFromPath(arg), args: args.slice(i + 1), launcher, ...extras };
  }
  return { kind: 'program', names: [], args: [], launcher, ...extras };
}

/** What an entry's `command` and `args` start. */
export function identifyLaunch(command: string, args: readonly string[]): Launch {
  const name = commandName(command);
  if (name === 'docker' || name === 'podman') return { kind: 'docker', runner: name };
  if (name === 'cmd' && args[0]?.toLowerCase() === '/c' && args[1] !== undefined) return identifyLaunch(args[1], args.slice(2));
  if (name === 'npx') return npx(args);
  if (name === 'uvx') return uvx(args, false);
  if (name === 'uv') {
    const at = afterFlags(args, UV_VALUE_FLAGS);
    const rest = args.slice(at);
    if (rest[0] === 'tool' && rest[1] === 'run') return uvx(rest.slice(2), false);
    // `uv --directory DIR run NAME`: flags before `run` belong to uv, and may name the project.
    if (rest[0] === 'run') return uvx([...args.slice(0, at), ...rest.slice(1)], true);
  }
  if (/^python(\d+(\.\d+)*)?$/.test(name) || name === 'py') return python(args, null);
  if (name === 'node' || name === 'nodejs') {
    const at = afterFlags(args, NODE_VALUE_FLAGS);
    const script = args[at];
    return { kind: 'program', names: script !== undefined ? namesFromPath(script) : [], args: args.slice(at + 1), launcher: null };
  }
  return { kind: 'program', names: namesFromPath(command), args, launcher: null };
}
