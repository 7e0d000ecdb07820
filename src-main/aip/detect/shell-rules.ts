import RE2 from 're2';

/*
 * What an undisguised command does, decided from its name and its argument values (shell.ts
 * undoes the disguises first). Each function answers with the reason in human words, or null.
 * The lines drawn here, and why:
 * - rm -r/-f is destructive only for `/`, the home folder or an absolute path outside /tmp:
 *   agents clean their own build folders (`rm -rf ./build`, `rm -rf /tmp/x`) all day, and a path
 *   held in a variable (`rm -rf "$OUT"`) cannot be judged without running the script.
 * - a fetch piped into an interpreter counts only when the interpreter reads the fetched text
 *   as its program (stdin, `-s`, `-`): `curl … | python3 -m json.tool` reads it as data.
 * - an upload is curl/wget sending a file's bytes (`@file`, `-T`), or netcat fed from a file.
 */

const TEMP_ROOTS = ['/tmp/', '/var/tmp/'];
const SYSTEM_ROOTS = new Set(['/', '/etc', '/usr', '/bin', '/sbin', '/lib', '/lib64', '/var', '/boot', '/home', '/root', '/opt', '/srv', '/dev', '/sys', '/proc']);
const HARMLESS_DEVICES = new Set(['/dev/null', '/dev/zero', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/random', '/dev/urandom']);
const FETCHERS = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'xh', 'aria2c', 'lwp-request', 'get']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'ash']);
const INTERPRETERS = new Set([...SHELLS, 'python', 'python2', 'python3', 'perl', 'ruby', 'node', 'php', 'deno', 'bun']);
const SOURCE_FORMS = new Set([...INTERPRETERS, 'source', '.', 'eval']);
const NETCATS = new Set(['nc', 'ncat', 'netcat', 'socat', 'telnet']);
/** Commands that print, copy or pack a file's content. */
export const READERS = new Set(['cat', 'tac', 'less', 'more', 'head', 'tail', 'nl', 'strings', 'xxd', 'od', 'hexdump', 'base64', 'base32', 'bat', 'batcat', 'view', 'vi', 'vim', 'nano', 'grep', 'egrep', 'fgrep', 'rg', 'awk', 'sed', 'cut', 'sort', 'uniq', 'cp', 'scp', 'rsync', 'tar', 'zip', 'gzip', 'openssl', 'xclip', 'pbcopy', 'dd']);
const BLOCK_DEVICE = new RE2('^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|mapper/)', 'u');
const FORK_BOMB = new RE2('([A-Za-z_:][A-Za-z0-9_:]*)\\s*\\(\\)\\s*\\{([^}]{0,200})\\}', 'gu');

const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
const positional = (args: readonly string[]): string[] => {
  const out: string[] = [];
  let options = true;
  for (const arg of args) {
    if (options && arg === '--') options = false;
    else if (!options || !arg.startsWith('-') || arg === '-') out.push(arg);
  }
  return out;
};

/** `/a/./b/../c` → `/a/c`; '/' for the root. */
function resolveAbsolute(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** Why deleting `path` recursively matters, or null for relative paths, temp folders and unknowns. */
function dangerousTarget(path: string): string | null {
  if (path === '~' || path.startsWith('~/') || path.startsWith('$HOME') || path.startsWith('${HOME}')) return 'the home folder';
  if (!path.startsWith('/')) return null;
  const resolved = resolveAbsolute(path.endsWith('*') ? path.slice(0, -1) : path);
  if (resolved === '/') return 'the root of the file system';
  if (TEMP_ROOTS.some((root) => `${resolved}/`.startsWith(root) && `${resolved}/` !== root)) return null;
  return `${resolved}, outside the temporary folders`;
}

/** Why the command destroys data, or null. */
export function destructiveReason(name: string, args: readonly string[]): string | null {
  if (name === 'rm') {
    let forceful = false;
    for (const arg of args) {
      if (arg === '--') break;
      if (arg === '--recursive' || arg === '--force' || arg === '--no-preserve-root') forceful = true;
      else if (arg.startsWith('-') && !arg.startsWith('--') && [...arg].some((c) => c === 'r' || c === 'R' || c === 'f')) forceful = true;
    }
    if (!forceful) return null;
    for (const target of positional(args)) {
      const why = dangerousTarget(target);
      if (why) return `rm deletes ${why}`;
    }
    return null;
  }
  if ((name === 'mkfs' || name.startsWith('mkfs.')) || name === 'mke2fs' || name === 'mkswap' || name === 'wipefs') return `${name} formats a device`;
  if (name === 'dd') {
    const out = args.find((a) => a.startsWith('of='))?.slice(3);
    if (out && out.startsWith('/dev/') && !HARMLESS_DEVICES.has(out)) return `dd writes over the device ${out}`;
    return null;
  }
  if (name === 'shred') {
    const target = positional(args).find((t) => BLOCK_DEVICE.test(t) || dangerousTarget(t));
    return target ? `shred overwrites ${target}` : null;
  }
  if (name === 'chmod' || name === 'chown' || name === 'chgrp') {
    const recursive = args.some((a) => a === '--recursive' || (a.startsWith('-') && !a.startsWith('--') && a.includes('R')));
    if (!recursive) return null;
    const target = positional(args).find((t) => SYSTEM_ROOTS.has(resolveAbsolute(t.endsWith('*') ? t.slice(0, -1) : t)) && t.startsWith('/'));
    const home = positional(args).find((t) => t === '~' || t === '~/' || t === '$HOME');
    return target || home ? `${name} -R changes every file under ${target ?? home}` : null;
  }
  if (name === 'find' && args.some((a) => a === '-delete')) {
    const start = positional(args)[0];
    const why = start === undefined ? null : dangerousTarget(start);
    return why ? `find -delete deletes under ${why}` : null;
  }
  return null;
}

/** The span of a fork bomb (`:(){ :|:& };:`) in `text`, or null. */
export function forkBomb(text: string): { start: number; end: number } | null {
  if (!text.includes('(')) return null;
  FORK_BOMB.lastIndex = 0;
  for (let m = FORK_BOMB.exec(text), n = 0; m !== null && n < 64; m = FORK_BOMB.exec(text), n += 1) {
    const fn = m[1]!;
    const body = m[2]!.replaceAll(' ', '').replaceAll('\t', '');
    if (body.includes(`${fn}|${fn}`) && body.includes('&')) return { start: m.index, end: m.index + m[0].length };
  }
  return null;
}

/** What secret file `path` is (a noun phrase), or null. */
function sensitivePath(path: string): string | null {
  const lower = path.toLowerCase();
  const base = basename(lower);
  if (['/etc/shadow', '/etc/gshadow', '/etc/passwd', '/etc/sudoers', '/etc/master.passwd'].includes(resolveAbsoluteIfAbsolute(lower))) return `the system account file ${path}`;
  if (lower.includes('/.ssh/') || lower.startsWith('.ssh/') || lower.endsWith('/.ssh') || lower === '~/.ssh') return `${path} in the SSH folder`;
  if (['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519'].includes(base)) return `the SSH private key ${path}`;
  if (base.endsWith('.pem') || base.endsWith('.key') || base.endsWith('.p12') || base.endsWith('.pfx')) return `the key or certificate file ${path}`;
  if (base === '.env' || (base.startsWith('.env.') && !['.env.example', '.env.sample', '.env.template', '.env.dist'].includes(base))) return `the environment secrets file ${path}`;
  if (lower.endsWith('.aws/credentials') || ['.netrc', '.git-credentials', '.pgpass', '.npmrc', '.pypirc'].includes(base) || lower.endsWith('.kube/config') || lower.endsWith('.docker/config.json')) return `the credentials file ${path}`;
  return null;
}

function resolveAbsoluteIfAbsolute(path: string): string {
  return path.startsWith('/') ? resolveAbsolute(path) : path;
}

/** Why the command reads a secret file, or null. */
export function sensitiveReadReason(name: string, args: readonly string[]): string | null {
  if (!READERS.has(name)) return null;
  for (const arg of args) {
    const value = arg.startsWith('-') && arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg;
    const why = sensitivePath(value.startsWith('if=') ? value.slice(3) : value);
    if (why) return `${name} reads ${why}`;
  }
  return null;
}

const uploadsFile = (value: string | undefined): boolean => value !== undefined && value.startsWith('@') && value !== '@-' && value.length > 1;
const formFile = (value: string | undefined): boolean => value !== undefined && (value.includes('=@') || value.includes('=<')) && !value.endsWith('=@-') && !value.endsWith('=<-');

/** Why the command sends a local file over the network, or null. `inputs` are its `<` redirect targets. */
export function exfiltrationReason(name: string, args: readonly string[], inputs: readonly string[]): string | null {
  if (name === 'curl') {
    for (let i = 0; i < args.length; i += 1) {
      const arg = args[i]!;
      const next = args[i + 1];
      const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
      if (['-d', '--data', '--data-binary', '--data-ascii', '--data-urlencode', '--json'].includes(flag) && (uploadsFile(inline ?? next) || (flag === '--data-urlencode' && (inline ?? next ?? '').includes('@')))) return `curl posts the file ${(inline ?? next)!.slice((inline ?? next)!.indexOf('@') + 1)}`;
      if (arg.startsWith('-d@') && arg !== '-d@-') return `curl posts the file ${arg.slice(3)}`;
      if ((flag === '-F' || flag === '--form') && formFile(inline ?? next)) return `curl uploads a file in a form field (${inline ?? next})`;
      if ((flag === '-T' || flag === '--upload-file') && (inline ?? next) !== undefined && (inline ?? next) !== '-') return `curl uploads the file ${inline ?? next}`;
    }
    return null;
  }
  if (name === 'wget') {
    const post = args.findIndex((a) => a.startsWith('--post-file') || a.startsWith('--body-file'));
    if (post >= 0) return `wget posts the file ${args[post]!.includes('=') ? args[post]!.slice(args[post]!.indexOf('=') + 1) : args[post + 1] ?? ''}`;
    return null;
  }
  if (NETCATS.has(name) && inputs.some((input) => input !== '' && input !== '/dev/null')) return `${name} sends the file ${inputs[0]} to the network`;
  return null;
}

export const isRemoteFetcher = (name: string): boolean => FETCHERS.has(name);
export const isNetcat = (name: string): boolean => NETCATS.has(name);

/**
 * Whether `name args` runs its program from stdin (the end of a pipe), or, with `sourceForm`, is
 * a command that would run an argument's substitution as code (`bash <(…)`, `eval "$(…)"`).
 */
export function isShellInterpreter(name: string, args: readonly string[], sourceForm = false): boolean {
  if (sourceForm) return SOURCE_FORMS.has(name);
  if (!INTERPRETERS.has(name)) return false;
  if (args.includes('-c') || args.includes('-m') || args.includes('-e')) return false;
  const rest = positional(args);
  return rest.length === 0 || rest[0] === '-' || args.includes('-s') || (SHELLS.has(name) && rest[0] === '/dev/stdin');
}
