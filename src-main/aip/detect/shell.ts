import { excerptOf, type DetectorFinding } from './finding.js';
import { foldText } from './normalize.js';
import { lexCommandLine, type SimpleCommand, type Word } from './shell-lexer.js';
import RE2 from 're2';
import { destructiveReason, exfiltrationReason, forkBomb, isNetcat, isRemoteFetcher, isShellInterpreter, READERS, sensitiveReadReason } from './shell-rules.js';

/*
 * The shell-command analysis (docs/threat-detection.md): what a command argument would do once
 * bash has undone its quoting. Two questions per command word: is it disguised (the disguise is
 * the finding: nobody types `r''m` or `$'\162\155'` by accident), and, once undisguised, is the
 * command destructive, a remote script, an upload of a local file or a read of a secret file.
 * The line is lexed on its folded view (NFKC and homoglyphs undone), so `ｒｍ` is analysed as
 * `rm`, and offsets are mapped back to the original. Substitutions are analysed again as command
 * lines of their own, to a fixed depth. Everything is bounded: a command past MAX_COMMAND is
 * analysed up to the cap and reported as too large.
 */

const MAX_COMMAND = 64 * 1024;
const MAX_DEPTH = 4;
/** Simple commands judged per call, substitutions included: a real command line has a handful. */
const MAX_COMMANDS = 2048;
const MAX_ARGUMENT_TEXT = 1024 * 1024;
const MAX_WALK_DEPTH = 16;

/** Argument keys whose string values are command lines (compared lowercased, without `_`/`-`). */
const COMMAND_KEYS = new Set(['command', 'cmd', 'script', 'shell', 'bash', 'sh', 'exec', 'code', 'commandline', 'shellcommand', 'args', 'argv', 'run']);
const ARGV_KEYS = new Set(['args', 'argv']);

/** Prefix commands that run their arguments as a command. */
const WRAPPERS = new Set(['sudo', 'doas', 'env', 'nohup', 'time', 'nice', 'exec', 'command', 'builtin', 'timeout', 'stdbuf', 'ionice', 'busybox', 'xargs', 'chroot', 'setsid', 'unbuffer']);
/** Inner commands of a `$(…)` command word that only locate a program (`$(which python3)`): no disguise. */
const LOCATORS = new Set(['which', 'command', 'type', 'npm', 'pnpm', 'yarn', 'pwd', 'dirname', 'realpath', 'readlink', 'git', 'brew', 'go', 'xcrun', 'rbenv', 'pyenv', 'nvm', 'asdf', 'python', 'python3', 'node', 'cargo', 'rustc', 'ruby', 'gem', 'uname']);

const RULES = {
  obfuscated_command: 'A command word is disguised',
  destructive_command: 'The command destroys data or the system outside the working tree',
  remote_code: 'The command runs a script fetched from the network',
  file_exfiltration: 'The command uploads a local file over the network',
  sensitive_read: 'The command reads a file that holds secrets',
  too_large: 'The command is too large to analyse in full',
} as const;
type ShellRule = keyof typeof RULES;

interface Context {
  original: string;
  path: string;
  map: (start: number, end: number) => { start: number; end: number };
  findings: DetectorFinding[];
  seen: Set<string>;
  /** Simple commands left to judge (shared with nested contexts). */
  budget: { commands: number };
}

function report(ctx: Context, rule: ShellRule, why: string, start: number, end: number): void {
  const span = ctx.map(start, end);
  const key = `${rule}:${span.start}:${span.end}`;
  if (ctx.seen.has(key)) return;
  ctx.seen.add(key);
  ctx.findings.push({
    detector: 'shell',
    rule,
    description: `${RULES[rule]}: ${why}.`,
    path: ctx.path,
    start: span.start,
    end: span.end,
    excerpt: excerptOf(ctx.original, span.start, span.end),
  });
}

const basename = (value: string): string => value.slice(value.lastIndexOf('/') + 1);
const isAssignment = (word: Word): boolean => {
  const eq = word.value.indexOf('=');
  if (eq <= 0 || word.raw.startsWith('"') || word.raw.startsWith("'")) return false;
  for (let i = 0; i < eq; i += 1) {
    const c = word.value[i]!;
    const ok = c === '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
};
const BLOCK_DEVICE = new RE2('^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|mapper/)', 'u');
/** A character test in a loop: cheaper per short word than a call into RE2. */
const hasNonAscii = (text: string): boolean => {
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) > 0x7f) return true;
  return false;
};
const DURATION = new RE2('^[0-9.]+[smhd]?$', 'u');
const NEEDS_QUOTES = new RE2('[\\s\'"\\\\$`;&|<>(){}*?#~]', 'u');
const firstWord = (text: string): string => {
  const trimmed = text.trim();
  let end = 0;
  while (end < trimmed.length && trimmed[end] !== ' ' && trimmed[end] !== '\t' && trimmed[end] !== '\n') end += 1;
  return trimmed.slice(0, end);
};
const strip = (value: string, chars: string): string => [...value].filter((c) => !chars.includes(c)).join('');

/** What a disguised command word runs as, and why it counts as disguised (null: not disguised). */
function undisguise(word: Word, originalWord: string, vars: Map<string, string>, ifs: string | null): { name: string; why: string | null } {
  const f = word.flags;
  const plain = basename(word.value);
  if (originalWord !== word.raw && hasNonAscii(originalWord)) return { name: plain.toLowerCase(), why: 'letters from another script or fullwidth forms that fold to ASCII' };
  if (f.innerBackslash) return { name: plain, why: 'a backslash inside the command word' };
  if (f.splitQuotes) return { name: plain, why: 'quotes splitting the command word' };
  if (f.ansiC) return { name: plain, why: "an ANSI-C $'…' escape spelling the command word" };
  if (f.braceComma) {
    const open = word.value.indexOf('{');
    const close = word.value.indexOf('}', open);
    const first = word.value.slice(open + 1, close).split(',').find((part) => part !== '') ?? '';
    return { name: basename(word.value.slice(0, open) + first), why: 'a brace expansion producing the command' };
  }
  if (f.substitution && word.inner.length > 0) {
    const inner = word.inner[0]!.trim();
    const head = firstWord(inner);
    if (LOCATORS.has(basename(head))) return { name: plain, why: null };
    const echoed = head === 'echo' || head === 'printf' ? strip(inner.slice(head.length).trim(), '\'"') : inner;
    return { name: basename(firstWord(echoed)), why: 'a command substitution producing the command word' };
  }
  if (f.variable && word.variables.length > 0 && word.value.startsWith('$')) {
    const assigned = vars.get(word.variables[0]!);
    if (assigned !== undefined) {
      const name = ifs === null ? assigned.split(' ', 1)[0]! : strip(assigned, ifs);
      return { name: basename(name), why: 'a variable assigned on the same line used as the command' };
    }
  }
  return { name: plain, why: null };
}

/** The words after wrappers (`sudo -u x`, `env A=1`, `timeout 5`) and leading assignments. */
function commandStart(words: Word[], vars: Map<string, string>): number {
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    if (isAssignment(w)) {
      const eq = w.value.indexOf('=');
      vars.set(w.value.slice(0, eq), w.value.slice(eq + 1));
      i += 1;
      continue;
    }
    if (!WRAPPERS.has(basename(w.value)) || w.flags.substitution) return i;
    i += 1;
    while (i < words.length && (words[i]!.value.startsWith('-') || DURATION.test(words[i]!.value))) {
      const takesValue = ['-u', '-g', '-n', '-c', '-s', '-k', '-i', '-p'].includes(words[i]!.value);
      i += takesValue ? 2 : 1;
    }
  }
  return i;
}

function analyzeLine(ctx: Context, text: string, toOriginalWord: (w: Word) => string, depth: number): void {
  const commands = lexCommandLine(text);
  const vars = new Map<string, string>();
  let ifs: string | null = null;
  let previous = null as { name: string; fetches: boolean; reads: boolean } | null;
  for (const command of commands) {
    if (--ctx.budget.commands < 0) return;
    for (const w of command.words) for (const inner of w.inner) if (depth < MAX_DEPTH && ctx.budget.commands > 0) analyzeNested(ctx, text, w, inner, depth);
    const words = command.words;
    const at = commandStart(words, vars);
    if (vars.has('IFS') && ifs === null) {
      ifs = vars.get('IFS')!;
      const assignment = words.find((w) => w.value.startsWith('IFS='));
      if (assignment) report(ctx, 'obfuscated_command', 'the field separator IFS is reassigned, so words split where nobody reading them would', assignment.start, assignment.end);
    }
    const head = words[at];
    if (head === undefined) {
      checkRedirects(ctx, command, '');
      previous = null;
      continue;
    }
    const { name, why } = undisguise(head, toOriginalWord(head), vars, ifs);
    if (why !== null) report(ctx, 'obfuscated_command', why, head.start, head.end);
    const args = words.slice(at + 1).map((w) => w.value);
    const end = words[words.length - 1]!.end;
    const destructive = destructiveReason(name, args);
    if (destructive) report(ctx, 'destructive_command', destructive, head.start, end);
    const sensitive = sensitiveReadReason(name, args);
    if (sensitive) report(ctx, 'sensitive_read', sensitive, head.start, end);
    const upload = exfiltrationReason(name, args, command.redirects.filter((r) => r.op === '<').map((r) => r.target?.value ?? ''));
    if (upload) report(ctx, 'file_exfiltration', upload, head.start, end);
    if (previous?.fetches && isShellInterpreter(name, args)) report(ctx, 'remote_code', `the output of ${previous.name} is piped into ${name}`, head.start, end);
    if (isShellInterpreter(name, args, true)) {
      const fetched = words.slice(at + 1).some((w) => w.inner.some((inner) => isRemoteFetcher(basename(firstWord(inner)))));
      if (fetched) report(ctx, 'remote_code', `${name} runs what a network fetch returns`, head.start, end);
    }
    if (previous?.reads && isNetcat(name)) report(ctx, 'file_exfiltration', `the output of ${previous.name} is sent to the network by ${name}`, head.start, end);
    checkRedirects(ctx, command, name);
    const piped = command.next === '|' || command.next === '|&';
    previous = piped ? { name, fetches: isRemoteFetcher(name) || (previous?.fetches === true && name === 'tee'), reads: READERS.has(name) && args.length > 0 } : null;
  }
}

function analyzeNested(ctx: Context, text: string, w: Word, inner: string, depth: number): void {
  const offset = text.indexOf(inner, w.start);
  const base = offset < 0 ? w.start : offset;
  const nested: Context = { ...ctx, map: (s, e) => (offset < 0 ? ctx.map(w.start, w.end) : ctx.map(base + s, base + e)) };
  analyzeLine(nested, inner, (word) => word.raw, depth + 1);
}

function checkRedirects(ctx: Context, command: SimpleCommand, name: string): void {
  for (const r of command.redirects) {
    const target = r.target?.value ?? '';
    if (r.target === null) continue;
    if (r.op.includes('>') && BLOCK_DEVICE.test(target)) report(ctx, 'destructive_command', `output is written over the block device ${target}`, r.target.start, r.target.end);
    if (target.startsWith('/dev/tcp/') || target.startsWith('/dev/udp/')) report(ctx, 'file_exfiltration', `${name || 'the command'} talks to the network through ${target}`, r.target.start, r.target.end);
    if (r.op === '<') {
      const why = sensitiveReadReason('cat', [target]);
      if (why) report(ctx, 'sensitive_read', why, r.target.start, r.target.end);
    }
  }
}

/** Findings for one command line. */
export function analyzeShellCommand(command: string, path = ''): DetectorFinding[] {
  const findings: DetectorFinding[] = [];
  try {
    const capped = command.length > MAX_COMMAND ? command.slice(0, MAX_COMMAND) : command;
    // Plain ASCII has nothing to fold: the identity view spares a mapping per word.
    const folded = hasNonAscii(capped) ? foldText(capped) : { text: capped, toOriginal: (start: number, end: number) => ({ start, end }) };
    const ctx: Context = { original: command, path, map: (s, e) => folded.toOriginal(s, e), findings, seen: new Set(), budget: { commands: MAX_COMMANDS } };
    const originalWord = (w: Word): string => {
      const span = folded.toOriginal(w.start, w.end);
      return command.slice(span.start, span.end);
    };
    analyzeLine(ctx, folded.text, originalWord, 0);
    const bomb = forkBomb(folded.text);
    if (bomb) report(ctx, 'destructive_command', 'a fork bomb, which starts processes until the machine stops', bomb.start, bomb.end);
    if (ctx.budget.commands < 0) report(ctx, 'too_large', `only the first ${MAX_COMMANDS} commands were analysed`, 0, Math.min(capped.length, 200));
    if (command.length > MAX_COMMAND) report({ ...ctx, map: (s, e) => ({ start: s, end: e }) }, 'too_large', `only the first ${MAX_COMMAND} characters were analysed`, MAX_COMMAND, Math.min(command.length, MAX_COMMAND + 200));
  } catch {
    // A lexer bug must not take the proxy down; an unanalysed command is reported, not passed silently.
    findings.push({ detector: 'shell', rule: 'too_large', description: `${RULES.too_large}: the analysis failed.`, path, start: 0, end: Math.min(command.length, 200), excerpt: excerptOf(command, 0, 200) });
  }
  return findings;
}

const normalKey = (key: string): string => strip(key.toLowerCase(), '_-');

/** Joins an argv array into one command line, remembering where each element starts. */
function joinArgv(prefix: string | null, items: string[]): { text: string; starts: number[] } {
  let text = prefix === null ? '' : `${prefix} `;
  const starts: number[] = [];
  for (const item of items) {
    const plain = item.length > 0 && !NEEDS_QUOTES.test(item);
    starts.push(text.length + (plain ? 0 : 1));
    text += plain ? item : `'${item.replaceAll("'", "'\\''")}'`;
    text += ' ';
  }
  return { text, starts };
}

/** Findings for the string arguments that hold a shell command, with paths. */
export function scanCommandArguments(args: unknown): DetectorFinding[] {
  const findings: DetectorFinding[] = [];
  let budget = MAX_ARGUMENT_TEXT;
  const walk = (value: unknown, path: string, depth: number): void => {
    if (depth > MAX_WALK_DEPTH || budget <= 0 || value === null || typeof value !== 'object') return;
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
    const commandString = Array.isArray(value) ? undefined : entries.find(([k, v]) => typeof v === 'string' && !ARGV_KEYS.has(normalKey(k)) && COMMAND_KEYS.has(normalKey(k)));
    for (const [key, child] of entries) {
      const childPath = Array.isArray(value) ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
      const isCommandKey = !Array.isArray(value) && COMMAND_KEYS.has(normalKey(key));
      if (isCommandKey && typeof child === 'string') {
        budget -= child.length;
        findings.push(...analyzeShellCommand(child, childPath));
      } else if (isCommandKey && Array.isArray(child) && child.length > 0 && child.every((x) => typeof x === 'string')) {
        const items = child as string[];
        const withCommand = ARGV_KEYS.has(normalKey(key)) && commandString !== undefined ? (commandString[1] as string) : null;
        const joined = joinArgv(withCommand, items);
        budget -= joined.text.length;
        for (const f of analyzeShellCommand(joined.text, childPath)) {
          let index = -1;
          for (let i = 0; i < joined.starts.length; i += 1) if (joined.starts[i]! <= f.start) index = i;
          if (index < 0) {
            // Starts in the command string the argv was joined to: reported there.
            const [commandKey, commandText] = commandString as readonly [string, string];
            const start = Math.min(f.start, commandText.length);
            const end = Math.min(Math.max(start, f.end), commandText.length);
            findings.push({ ...f, path: path === '' ? commandKey : `${path}.${commandKey}`, start, end, excerpt: excerptOf(commandText, start, end) });
            continue;
          }
          const item = items[index]!;
          const start = Math.min(Math.max(0, f.start - joined.starts[index]!), item.length);
          const end = Math.min(Math.max(start, f.end - joined.starts[index]!), item.length);
          findings.push({ ...f, path: `${childPath}[${index}]`, start, end, excerpt: excerptOf(item, start, end) });
        }
      } else walk(child, childPath, depth + 1);
    }
  };
  try {
    walk(args, '', 0);
  } catch {
    // Hostile shapes (getters, proxies) end the walk; what was found so far stands.
  }
  // A command string analysed alone and again joined to its argv reports its own words twice.
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.path}|${f.rule}|${f.start}|${f.end}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
