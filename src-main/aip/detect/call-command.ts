import { bareHost, isLoopbackHost, urlHost } from './call-hosts.js';
import { lexCommands } from './call-lexer.js';
import { baseName, isEnvironmentNormalized, isPersistencePath, isReconDirectory, isReconFileNormalized, isSecretNormalized, normalizePath } from './call-paths.js';

/*
 * What a shell command an agent asks to run does, in the chain detector's terms (call-classes.ts):
 * whether it sends over the network, maps the machine, reads the environment or a secret, which
 * files it writes and which written files it runs. It reads the words of each simple command
 * (call-lexer.ts), after the prefixes that only change how a program is started (`sudo`, `env
 * A=b`, `nohup`, `timeout 5`…). Conservative by design: a word that could be a command is
 * treated as one. A command that only names a secret to authenticate with (`ssh -i key`) does not
 * count as reading it, or every ordinary ssh would start a chain.
 */

export interface CommandFacts {
  network: boolean;
  recon: boolean;
  envRead: boolean;
  secretRead: boolean;
  fileRead: boolean;
  persistence: boolean;
  /** Files written: redirection targets, `tee`, `curl -o`, `wget -O`, `cp`/`mv` destinations, `dd of=`. */
  writes: string[];
  /** Files run as programs: a command word with a path, or the script given to an interpreter or `source`. */
  runs: string[];
}

const PREFIXES = new Set(['sudo', 'doas', 'nohup', 'exec', 'time', 'command', 'builtin', 'nice', 'ionice', 'stdbuf', 'xargs', 'npx', 'busybox', 'strace', 'unbuffer', 'setsid', 'chroot']);
const NETWORK = new Set(['curl', 'wget', 'nc', 'ncat', 'netcat', 'scp', 'sftp', 'ssh', 'ftp', 'tftp', 'telnet', 'socat', 'http', 'https', 'xh', 'aria2c', 'invoke-webrequest', 'iwr', 'invoke-restmethod', 'irm', 'lwp-request', 'sendmail', 'mail', 'mutt', 'nslookup', 'dig']);
const AUTH_KEY_OPTIONS = new Set(['-i', '--identity', '--key']);
const RECON = new Set(['whoami', 'id', 'uname', 'w', 'who', 'last', 'lastlog', 'groups', 'ifconfig', 'ipconfig', 'netstat', 'ss', 'arp', 'lsb_release', 'getent', 'systeminfo', 'lscpu', 'ps', 'users']);
const IP_RECON = new Set(['a', 'addr', 'address', 'r', 'route', 'link', 'n', 'neigh', 'neighbour']);
const LISTING = new Set(['ls', 'dir', 'vdir', 'tree', 'find', 'du', 'stat', 'exa', 'eza', 'lsd', 'll', 'la', 'locate', 'fd']);
const READERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'bat', 'strings', 'xxd', 'od', 'hexdump', 'base64', 'nl', 'tac', 'grep', 'rg', 'awk', 'sed', 'cut', 'sort', 'uniq', 'wc', 'diff', 'jq', 'type', 'get-content', 'gc']);
const COPIERS = new Set(['cp', 'mv', 'install', 'rsync', 'copy', 'move', 'copy-item', 'move-item']);
const INTERPRETERS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'ash', 'node', 'nodejs', 'deno', 'bun', 'perl', 'ruby', 'php', 'pwsh', 'powershell', 'osascript', 'tsx', 'ts-node', 'lua', 'rscript', 'julia', 'source', '.']);
const INLINE_CODE_OPTIONS = new Set(['-c', '-e', '-m', '-p', '--eval', '--print', '-command', '--command', '-encodedcommand', '-enc']);
const ENV_CODE_MARKS = ['process.env', 'os.environ', 'getenv', 'environ[', '$env:', 'env::var', 'system.getenv'];
const SECRET_VARIABLE_WORDS = ['KEY', 'TOKEN', 'SECRET', 'PASS', 'CREDENTIAL', 'AUTH', 'PRIVATE', 'DSN', 'DATABASE_URL', 'SESSION', 'COOKIE'];
const NOT_FILES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '-']);

export function analyseCommand(text: string): CommandFacts {
  const facts: CommandFacts = { network: false, recon: false, envRead: false, secretRead: false, fileRead: false, persistence: false, writes: [], runs: [] };
  const lower = text.length > 16_384 ? text.slice(0, 16_384).toLowerCase() : text.toLowerCase();
  if (ENV_CODE_MARKS.some((mark) => lower.includes(mark))) facts.envRead = true;
  const secretsNamed: string[] = [];
  const authKeys = new Set<string>();
  for (const words of lexCommands(text)) analyseSegment(words, facts, secretsNamed, authKeys);
  const written = new Set(facts.writes.map(normalizePath));
  if (secretsNamed.some((path) => !written.has(normalizePath(path)) && !authKeys.has(path))) facts.secretRead = true;
  if (facts.writes.some(isPersistencePath)) facts.persistence = true;
  return facts;
}

function analyseSegment(all: string[], facts: CommandFacts, secretsNamed: string[], authKeys: Set<string>): void {
  const words: string[] = [];
  for (let i = 0; i < all.length; i++) {
    const word = all[i]!;
    const target = all[i + 1];
    if (word === '>' || word === '<' || word === '<<' || word === '<<<') {
      if (word === '>' && target !== undefined && !NOT_FILES.has(target)) facts.writes.push(target);
      if (word === '<' && target !== undefined) facts.fileRead = true;
      if (target !== undefined && word !== '<<') noteWord(target, facts, secretsNamed);
      i++;
    } else {
      words.push(word);
    }
    noteWord(word === '<<' ? '' : word, facts, secretsNamed);
  }
  const start = skipPrefixes(words, facts);
  if (start >= words.length) return;
  const program = words[start]!;
  const base = baseName(program.toLowerCase());
  const name = base.endsWith('.exe') ? base.slice(0, -'.exe'.length) : base;
  const args = words.slice(start + 1);
  const operands = args.filter((a) => !a.startsWith('-'));
  if (program.includes('/')) facts.runs.push(program);
  if (NETWORK.has(name)) noteNetwork(args, facts, authKeys);
  if (name === 'rsync' && args.some((a) => a.includes(':'))) noteNetwork(args, facts, authKeys);
  if (RECON.has(name) || (name === 'hostname' && operands.length === 0) || (name === 'ip' && IP_RECON.has(operands[0] ?? ''))) facts.recon = true;
  if (name === 'net' && ['user', 'localgroup', 'group'].includes(operands[0] ?? '')) facts.recon = true;
  if (LISTING.has(name) && operands.some(isReconDirectory)) facts.recon = true;
  noteEnvironment(name, args, facts);
  if (READERS.has(name) && operands.length > 0) facts.fileRead = true;
  noteWrites(name, args, operands, facts);
  notePersistence(name, args, operands, facts);
  if (isInterpreter(name)) noteScript(name, args, facts);
}

function isInterpreter(name: string): boolean {
  return INTERPRETERS.has(name) || (name.startsWith('python') && [...name.slice('python'.length)].every((c) => c === '.' || (c >= '0' && c <= '9')));
}

/** Paths, hosts and variables a word names, wherever it stands. */
function noteWord(word: string, facts: CommandFacts, secretsNamed: string[]): void {
  if (word.includes('$')) noteVariables(word, facts);
  for (const part of word.split('=')) {
    // curl and friends read a file named after `@` (`-d @file`, `-d@file`, `-F x=@file`).
    const at = part.indexOf('@');
    const path = at >= 0 && !part.slice(0, at).includes('/') ? part.slice(at + 1) : part;
    const normal = normalizePath(path);
    if (normal === '') continue;
    if (isSecretNormalized(normal)) secretsNamed.push(path);
    if (isReconFileNormalized(normal)) facts.recon = true;
    if (isEnvironmentNormalized(normal)) facts.envRead = true;
    const tcp = path.indexOf('/dev/tcp/') >= 0 ? path.indexOf('/dev/tcp/') : path.indexOf('/dev/udp/');
    if (tcp >= 0) {
      const host = path.slice(tcp + '/dev/tcp/'.length).split('/')[0] ?? '';
      if (!isLoopbackHost(host)) facts.network = true;
    }
  }
}

function skipPrefixes(words: string[], facts: CommandFacts): number {
  let i = 0;
  while (i < words.length) {
    const word = words[i]!.toLowerCase();
    if (isAssignment(words[i]!)) i++;
    else if (word === 'sudo' || word === 'doas') {
      i++;
      while (i < words.length && words[i]!.startsWith('-')) {
        if (words[i] === '-l' || words[i] === '--list') facts.recon = true;
        i += ['-u', '-g', '-h', '-c', '-p'].includes(words[i]!) ? 2 : 1;
      }
    } else if (word === 'env') {
      let j = i + 1;
      while (j < words.length && (words[j]!.startsWith('-') || isAssignment(words[j]!))) j++;
      if (j >= words.length) {
        facts.envRead = true;
        facts.recon = true;
      }
      i = j;
    } else if (word === 'timeout') {
      i++;
      while (i < words.length && words[i]!.startsWith('-')) i++;
      i++;
    } else if (PREFIXES.has(word)) {
      i++;
      while (i < words.length && words[i]!.startsWith('-')) i++;
    } else break;
  }
  return i;
}

function isAssignment(word: string): boolean {
  const eq = word.indexOf('=');
  if (eq <= 0) return false;
  for (let i = 0; i < eq; i++) {
    const c = word[i]!;
    const ok = c === '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

function noteNetwork(args: string[], facts: CommandFacts, authKeys: Set<string>): void {
  const hosts: string[] = [];
  args.forEach((arg, i) => {
    if (AUTH_KEY_OPTIONS.has(arg) && args[i + 1] !== undefined) authKeys.add(args[i + 1]!);
    if (arg.startsWith('-')) return;
    const host = urlHost(arg) ?? bareHost(arg, false);
    if (host !== null) hosts.push(host);
  });
  // A request to the agent's own machine (a dev server, a health check) sends nothing away.
  if (hosts.length === 0 || !hosts.every(isLoopbackHost)) facts.network = true;
}

function noteVariables(word: string, facts: CommandFacts): void {
  let i = word.indexOf('$');
  while (i >= 0 && i < word.length) {
    let j = i + 1;
    if (word[j] === '{') j++;
    let name = '';
    while (j < word.length && name.length < 128) {
      const c = word[j]!;
      if (!(c === '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) break;
      name += c;
      j++;
    }
    const upper = name.toUpperCase();
    if (SECRET_VARIABLE_WORDS.some((w) => upper.includes(w))) facts.envRead = true;
    i = word.indexOf('$', j);
  }
}

function noteEnvironment(name: string, args: string[], facts: CommandFacts): void {
  const listing = (name === 'printenv' && args.length === 0) || (name === 'set' && args.length === 0)
    || (name === 'export' && (args.length === 0 || args[0] === '-p'))
    || ((name === 'declare' || name === 'typeset') && args.every((a) => a.startsWith('-')) && args.some((a) => a.includes('p') || a.includes('x')))
    || (name === 'compgen' && (args.includes('-e') || args.includes('-v')))
    || name === 'get-childitem' && args.some((a) => a.toLowerCase().startsWith('env:'));
  if (listing) facts.recon = true;
  if (listing || name === 'printenv') facts.envRead = true;
}

function noteWrites(name: string, args: string[], operands: string[], facts: CommandFacts): void {
  if (name === 'tee') facts.writes.push(...operands);
  if (COPIERS.has(name) && operands.length >= 2) facts.writes.push(operands[operands.length - 1]!);
  if (name === 'dd') for (const a of args) if (a.startsWith('of=')) facts.writes.push(a.slice(3));
  args.forEach((arg, i) => {
    const value = args[i + 1];
    if (name === 'curl' && (arg === '-o' || arg === '--output') && value !== undefined) facts.writes.push(value);
    if (name === 'wget' && (arg === '-O' || arg === '--output-document') && value !== undefined && value !== '-') facts.writes.push(value);
    if (name === 'wget' && arg.startsWith('--output-document=')) facts.writes.push(arg.slice('--output-document='.length));
  });
}

function notePersistence(name: string, args: string[], operands: string[], facts: CommandFacts): void {
  const lowered = args.map((a) => a.toLowerCase());
  if (name === 'crontab') {
    if (lowered.includes('-l')) facts.recon = true;
    else if (!lowered.includes('-r')) facts.persistence = true;
  }
  if (name === 'systemctl' && ['enable', 'link', 'preset'].includes(operands[0] ?? '')) facts.persistence = true;
  if (name === 'launchctl' && ['load', 'bootstrap', 'submit', 'enable'].includes(operands[0] ?? '')) facts.persistence = true;
  if (name === 'schtasks' && lowered.includes('/create')) facts.persistence = true;
  if (name === 'reg' && lowered[0] === 'add' && lowered.some((a) => a.includes('\\currentversion\\run'))) facts.persistence = true;
  if (name === 'update-rc.d' || (name === 'chkconfig' && lowered.includes('on'))) facts.persistence = true;
}

/** The script an interpreter or `source` runs: its first operand, unless the code is given inline. */
function noteScript(name: string, args: string[], facts: CommandFacts): void {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (INLINE_CODE_OPTIONS.has(arg.toLowerCase())) return;
    if (arg.startsWith('-')) continue;
    if ((name === 'deno' || name === 'bun') && arg === 'run') continue;
    facts.runs.push(arg);
    return;
  }
}
