/*
 * What a path named in a tool call means for the chain detector (chains.ts): a secret, a place
 * reconnaissance looks at, a place that makes code run again later (persistence). Plain string
 * tests on a normalised path, no regular expressions: every test is linear in the path, which the
 * callers cap (call-args.ts, call-command.ts). Comparisons are case-blind, because macOS and
 * Windows paths are, and a miss there is an exfiltration let through.
 */

/** Longest string treated as a path; longer ones are not paths anyone reads. */
const PATH_MAX = 1024;

/** `.env` siblings that are templates, committed on purpose and holding no secret. */
const ENV_TEMPLATES = new Set(['example', 'sample', 'template', 'dist', 'defaults', 'default', 'schema', 'tpl']);
const SECRET_FILES = new Set([
  '.netrc', '_netrc', '.git-credentials', '.pgpass', '.npmrc', '.pypirc', '.my.cnf', '.htpasswd', '.vault-token',
  'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk', 'credentials.json', 'application_default_credentials.json',
]);
const SECRET_EXTENSIONS = ['.pem', '.key', '.p12', '.pfx', '.jks', '.keystore', '.kdbx', '.keychain', '.keychain-db', '.ppk'];
/** Directories every file of which is a secret, except the public parts listed in PUBLIC_IN_SECRET_DIRS. */
const SECRET_DIRS = new Set(['.ssh', '.gnupg', 'keychains', '.password-store']);
const PUBLIC_IN_SECRET_DIRS = new Set(['known_hosts', 'known_hosts.old', 'config', 'authorized_keys', 'environment']);
/** A file that is a secret only in this directory: `.aws/credentials`, `/etc/shadow`. */
const SECRET_IN_DIR: ReadonlyArray<readonly [string, string]> = [
  ['.aws', 'credentials'], ['.docker', 'config.json'], ['.kube', 'config'], ['etc', 'shadow'], ['etc', 'gshadow'],
  ['etc', 'master.passwd'], ['gcloud', 'credentials.db'], ['gcloud', 'access_tokens.db'], ['.azure', 'accesstokens.json'],
];

const RECON_DIRS = new Set(['/', '/root', '/home', '/users', '/etc', '/proc', '/var/spool/cron', '/etc/ssh']);
const RECON_DIR_NAMES = new Set(['.ssh', '.aws', '.gnupg', '.kube', '.docker']);
const RECON_FILES = new Set(['/etc/passwd', '/etc/group', '/etc/hosts', '/etc/hostname', '/etc/os-release', '/etc/issue', '/proc/version', '/etc/sudoers', '/etc/resolv.conf']);

const SHELL_STARTUP = new Set(['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zprofile', '.zshenv', '.zlogin', 'config.fish']);
const PERSISTENCE_PREFIXES = [
  '/var/spool/cron', '/etc/cron', '/etc/anacrontab', '/etc/profile', '/etc/bash.bashrc', '/etc/rc.local', '/etc/init.d/', '/etc/init/',
  '/etc/systemd/', '/lib/systemd/', '/usr/lib/systemd/', '/etc/ld.so.preload', '/etc/sudoers', '/etc/xdg/autostart/',
];
const PERSISTENCE_INFIXES = ['/.config/systemd/', '/.ssh/authorized_keys', '/.git/hooks/', '/library/launchagents/', '/library/launchdaemons/', '/.config/autostart/', '/start menu/programs/startup/'];

/**
 * A path as compared here: lower case, `/` separators, `file://`, quotes and a leading `@` or `<`
 * (curl's and the shell's "read this file") removed, `$HOME`/`${HOME}` as `~`, no `.` segments,
 * no doubled or trailing slash. '' when it cannot be a path (too long, blank, a URL).
 */
export function normalizePath(raw: string): string {
  if (raw.length === 0 || raw.length > PATH_MAX) return '';
  let p = raw.trim().toLowerCase();
  while (p.length > 0 && (p[0] === '"' || p[0] === "'" || p[0] === '@' || p[0] === '<')) p = p.slice(1);
  while (p.length > 0 && (p.endsWith('"') || p.endsWith("'"))) p = p.slice(0, -1);
  if (p.startsWith('file://')) p = p.slice('file://'.length);
  if (p.includes('://')) return '';
  if (p.includes('\\')) p = p.split('\\').join('/');
  if (p.startsWith('${home}')) p = `~${p.slice('${home}'.length)}`;
  else if (p.startsWith('$home')) p = `~${p.slice('$home'.length)}`;
  // Most paths are already tidy; only split the ones that are not.
  if (!p.includes('//') && !p.includes('/./') && !p.startsWith('./') && !p.endsWith('/.') && (p.length === 1 || !p.endsWith('/'))) return p;
  const absolute = p.startsWith('/');
  const segments = p.split('/').filter((s) => s !== '' && s !== '.');
  const joined = segments.join('/');
  return absolute ? `/${joined}` : joined;
}

/** The last segment of a normalised path. */
export function baseName(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? path : path.slice(slash + 1);
}

function segmentsOf(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/** A file that holds a credential: `.env`, a private key, `.aws/credentials`, `/etc/shadow`, a keychain… */
export function isSecretPath(raw: string): boolean {
  return isSecretNormalized(normalizePath(raw));
}

/** isSecretPath of a path already through normalizePath. */
export function isSecretNormalized(path: string): boolean {
  if (path === '') return false;
  const segments = segmentsOf(path);
  const last = segments[segments.length - 1] ?? '';
  if (last.endsWith('.pub')) return false;
  if (last === '.env' || last.endsWith('.env')) return true;
  if (last.startsWith('.env.') && !ENV_TEMPLATES.has(last.slice('.env.'.length))) return true;
  if (SECRET_FILES.has(last)) return true;
  if (SECRET_EXTENSIONS.some((ext) => last.length > ext.length && last.endsWith(ext))) return true;
  const parent = segments[segments.length - 2];
  if (parent !== undefined && SECRET_IN_DIR.some(([dir, file]) => dir === parent && file === last)) return true;
  if (segments.slice(0, -1).some((s) => SECRET_DIRS.has(s)) && !PUBLIC_IN_SECRET_DIRS.has(last)) return true;
  return path.startsWith('/etc/ssl/private/');
}

/** A directory whose listing maps the machine or its keys: `/`, `/root`, `/home`, `/etc`, `~/.ssh`… */
export function isReconDirectory(raw: string): boolean {
  const trimmed = raw.trim();
  if (trimmed === '/') return true;
  const path = normalizePath(trimmed);
  if (path === '') return false;
  return RECON_DIRS.has(path) || RECON_DIR_NAMES.has(baseName(path));
}

/** A file read to learn the machine's users and setup: `/etc/passwd`, `/etc/hosts`, `/proc/version`… */
export function isReconFile(raw: string): boolean {
  return RECON_FILES.has(normalizePath(raw));
}

/** isReconFile of a path already through normalizePath. */
export function isReconFileNormalized(path: string): boolean {
  return RECON_FILES.has(path);
}

/** A process's environment read as a file (`/proc/self/environ`, `/proc/1/environ`). */
export function isEnvironmentFile(raw: string): boolean {
  return isEnvironmentNormalized(normalizePath(raw));
}

/** isEnvironmentFile of a path already through normalizePath. */
export function isEnvironmentNormalized(path: string): boolean {
  return path.startsWith('/proc/') && path.endsWith('/environ');
}

/** A file whose content runs again later: crontabs, shell startup files, systemd units, authorized_keys, git hooks, launch agents. */
export function isPersistencePath(raw: string): boolean {
  const path = normalizePath(raw);
  if (path === '') return false;
  if (SHELL_STARTUP.has(baseName(path))) return true;
  if (PERSISTENCE_PREFIXES.some((prefix) => path.startsWith(prefix))) return true;
  const anchored = path.startsWith('/') ? path : `/${path}`;
  return PERSISTENCE_INFIXES.some((infix) => anchored.includes(infix));
}

/** Written like a path (no blanks, not a URL, and a separator, a leading `~` or `.`, or a secret's name). */
export function looksLikePath(value: string): boolean {
  if (value.length === 0 || value.length > PATH_MAX || hasBlank(value)) return false;
  if (value.includes('://') && !value.toLowerCase().startsWith('file://')) return false;
  return value.includes('/') || value.includes('\\') || value.startsWith('~') || value.startsWith('.') || isSecretPath(value);
}

function hasBlank(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) return true;
  }
  return false;
}
