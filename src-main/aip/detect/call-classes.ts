import type { CallClass } from '../../../src-shared/policy/schema.js';
import { argumentStrings, type ArgString } from './call-args.js';
import { analyseCommand } from './call-command.js';
import { bareHost, isLoopbackHost, urlHost } from './call-hosts.js';
import { isEnvironmentFile, isPersistencePath, isReconDirectory, isReconFile, isSecretPath, looksLikePath, normalizePath } from './call-paths.js';

/*
 * The classes of one tools/call for the chain rules (chains.ts, docs/threat-detection.md): what
 * the call does, judged from the tool's name (split into words: `read_file`, `readFile`,
 * `fs__read_file` all give read + file) and from its arguments (a bounded walk, call-args.ts).
 * A call may have several classes; a command an agent asks to run is read word by word
 * (call-command.ts). The classes are a reader's guess at intent, so they err towards the
 * dangerous reading when a name is ambiguous, and the chain rules, not the classes, decide.
 */

/** What the chain detector keeps of a call: its classes, and what the write → execute binding compares. */
export interface CallProfile {
  classes: ReadonlySet<CallClass>;
  /** Files the call writes (tool path arguments or command targets), as written. */
  writes: string[];
  /** Files the call runs as programs, as written. */
  runs: string[];
  /** The argument that says most about the call (a command, a URL, a path), for the card. */
  key: { path: string; value: string };
}

const COMMAND_KEYS = new Set(['command', 'cmd', 'script', 'commandline', 'command_line', 'shell_command', 'cmdline']);
const ARGV_KEYS = new Set(['args', 'argv', 'arguments']);
const EXEC_INPUT_KEYS = new Set([...ARGV_KEYS, 'input', 'code', 'line', 'commands']);
const PATH_KEYS = new Set(['path', 'paths', 'file', 'files', 'file_path', 'filepath', 'filename', 'file_name', 'target', 'target_path', 'destination', 'dest', 'destination_path', 'source', 'src', 'from', 'to', 'dir', 'directory', 'folder', 'uri', 'output', 'output_path', 'script_path', 'location']);
const DESTINATION_KEYS = new Set(['destination', 'dest', 'destination_path', 'target', 'target_path', 'to', 'output', 'output_path']);
const SOURCE_KEYS = new Set(['source', 'src', 'from']);
const URL_KEYS = new Set(['url', 'uri', 'urls', 'endpoint', 'webhook', 'webhook_url', 'href', 'link', 'callback', 'callback_url', 'base_url', 'server_url']);
const ENV_ARG_KEYS = new Set(['variable', 'variables', 'env', 'env_var', 'envvar', 'var', 'var_name', 'variable_name', 'environment_variable']);
/** Fields holding what is written or sent, never where: a URL inside a document is not a send. */
const CONTENT_KEYS = new Set(['content', 'contents', 'text', 'data', 'body', 'new_str', 'new_string', 'old_str', 'old_string', 'newtext', 'oldtext', 'edits', 'diff', 'patch', 'message', 'description', 'query', 'prompt']);
const KEY_ORDER = [COMMAND_KEYS, URL_KEYS, PATH_KEYS, ENV_ARG_KEYS];

const READ_WORDS = ['read', 'cat', 'get', 'open', 'view', 'load', 'show', 'head', 'tail', 'print', 'dump', 'retrieve', 'fetch', 'export', 'grep', 'search'];
const LIST_WORDS = ['list', 'ls', 'dir', 'dirs', 'directory', 'directories', 'folder', 'folders', 'tree', 'readdir', 'glob', 'stat', 'walk'];
const WRITE_WORDS = ['write', 'edit', 'create', 'append', 'save', 'put', 'update', 'patch', 'replace', 'insert', 'modify', 'overwrite', 'move', 'rename', 'copy', 'mv', 'cp'];
const CHANGE_WORDS = [...WRITE_WORDS, 'set', 'unset', 'delete', 'remove', 'rotate', 'add', 'store', 'reset', 'generate'];
const EXEC_WORDS = ['exec', 'execute', 'shell', 'bash', 'sh', 'zsh', 'terminal', 'powershell', 'pwsh', 'cmd', 'subprocess', 'spawn', 'command'];
const RUN_OBJECTS = ['command', 'commands', 'script', 'shell', 'code', 'program', 'process', 'binary', 'cmd', 'file'];
const NETWORK_WORDS = ['fetch', 'http', 'https', 'curl', 'wget', 'post', 'upload', 'webhook', 'send', 'email', 'mail', 'smtp'];
const ENV_WORDS = ['env', 'envs', 'getenv', 'printenv', 'environ', 'environment', 'envvar', 'envvars'];
const SECRET_WORDS = ['secret', 'secrets', 'credential', 'credentials', 'password', 'passwords', 'keychain', 'vault', 'keyring'];
const RECON_WORDS = ['whoami', 'hostname', 'uname', 'sysinfo', 'systeminfo'];

/** The classes of one tools/call, from its tool name and arguments (bounded walk of the arguments). */
export function classifyCall(tool: string, args: unknown): ReadonlySet<CallClass> {
  return profileCall(tool, args).classes;
}

export function profileCall(tool: string, args: unknown): CallProfile {
  const words = new Set(toolWords(typeof tool === 'string' ? tool : ''));
  const has = (list: readonly string[]): boolean => list.some((w) => words.has(w));
  const strings = argumentStrings(args);
  const classes = new Set<CallClass>();
  const writes: string[] = [];
  const runs: string[] = [];

  const listTool = has(LIST_WORDS);
  const writeTool = has(WRITE_WORDS) && !listTool;
  const changeTool = has(CHANGE_WORDS);
  const execTool = !listTool && (has(EXEC_WORDS) || (words.has('run') && has(RUN_OBJECTS)));
  const readTool = has(READ_WORDS) && !listTool && !writeTool && !execTool;
  // Paths in path fields count for every class; a path-looking value in any other field (not
  // content, not a command) counts only for what a path names (a secret, a place recon looks at).
  const paths = strings.filter((s) => PATH_KEYS.has(s.key) && normalizePath(s.value) !== '');
  const inPaths = new Set(paths);
  const named = strings.filter((s) => inPaths.has(s) || (!CONTENT_KEYS.has(s.key) && !COMMAND_KEYS.has(s.key) && looksLikePath(s.value)));

  // What the call runs: a command field anywhere, or everything an execution tool is given.
  const commands = strings.filter((s) => COMMAND_KEYS.has(s.key) || (execTool && EXEC_INPUT_KEYS.has(s.key)));
  if (execTool || commands.length > 0) classes.add('execute');
  if (commands.length > 0) {
    const facts = analyseCommand(joinCommands(commands));
    if (facts.network) classes.add('network_send');
    if (facts.recon) classes.add('recon');
    if (facts.envRead) classes.add('env_read');
    if (facts.secretRead) classes.add('secret_read');
    if (facts.fileRead) classes.add('file_read');
    if (facts.persistence) classes.add('persistence');
    writes.push(...facts.writes);
    runs.push(...facts.runs);
  }
  if (execTool) runs.push(...paths.map((s) => s.value));

  noteNetwork(strings, has(NETWORK_WORDS) || (words.has('request') && !words.has('pull') && !words.has('merge')), classes);

  if ((has(ENV_WORDS) && !changeTool) || strings.some((s) => ENV_ARG_KEYS.has(s.key) && isVariableName(s.value))) classes.add('env_read');
  if (has(SECRET_WORDS) && !changeTool) classes.add('secret_read');
  if (has(RECON_WORDS) || (has(['system', 'os', 'machine', 'host']) && has(['info', 'information', 'details']))) classes.add('recon');
  if (words.has('list') && has(['users', 'processes'])) classes.add('recon');

  if (listTool && named.some((s) => isReconDirectory(s.value))) classes.add('recon');
  if (!listTool && !execTool) {
    const read = writeTool ? named.filter((s) => SOURCE_KEYS.has(s.key)) : named;
    if (read.some((s) => isSecretPath(s.value))) classes.add('secret_read');
    if (read.some((s) => isEnvironmentFile(s.value))) classes.add('env_read');
    if (readTool && read.some((s) => inPaths.has(s) || s.value.startsWith('/') || s.value.startsWith('~'))) classes.add('file_read');
    if (readTool && read.some((s) => isReconFile(s.value))) classes.add('recon');
  }
  if (writeTool) noteToolWrite(strings, paths, words, writes);
  if (writes.length > 0) classes.add('file_write');
  if (writes.some(isPersistencePath)) classes.add('persistence');

  return { classes, writes: writes.slice(0, 16), runs: runs.slice(0, 16), key: keyArgument(strings) };
}

/** A write tool writes when it has a path and something to put there (a directory made empty is no file written). */
function noteToolWrite(strings: ArgString[], paths: ArgString[], words: Set<string>, writes: string[]): void {
  const moves = words.has('move') || words.has('rename') || words.has('copy') || words.has('mv') || words.has('cp');
  const destinations = paths.filter((s) => DESTINATION_KEYS.has(s.key));
  const targets = destinations.length > 0 ? destinations : paths.filter((s) => !SOURCE_KEYS.has(s.key)).slice(0, 1);
  const inPaths = new Set(paths);
  const content = strings.some((s) => !inPaths.has(s));
  if (targets.length > 0 && (content || (moves && paths.length >= 2))) writes.push(...targets.map((s) => s.value));
}

function noteNetwork(strings: ArgString[], networkTool: boolean, classes: Set<CallClass>): void {
  const hosts: string[] = [];
  for (const s of strings) {
    if (CONTENT_KEYS.has(s.key) || COMMAND_KEYS.has(s.key)) continue;
    const host = urlHost(s.value) ?? bareHost(s.value, !(s.key === 'host' || URL_KEYS.has(s.key)));
    if (host !== null) hosts.push(host);
  }
  // A network tool sends unless every address it names is the agent's own machine; any other
  // call sends when an argument is an address off the machine.
  if (networkTool ? hosts.length === 0 || !hosts.every(isLoopbackHost) : hosts.some((h) => !isLoopbackHost(h))) classes.add('network_send');
}

function joinCommands(commands: ArgString[]): string {
  // Items of one list are one argv (`["bash", "x.sh"]`), and an argv list continues the command
  // before it (`{command: "bash", args: ["x.sh"]}`); other fields are separate commands.
  const parts: string[] = [];
  let previous: ArgString | null = null;
  for (const s of commands) {
    const item = s.path.endsWith(']');
    const continues = previous !== null && item && (previous.key === s.key || (ARGV_KEYS.has(s.key) && COMMAND_KEYS.has(previous.key)));
    parts.push(parts.length === 0 ? s.value : `${continues ? ' ' : '\n'}${s.value}`);
    previous = s;
  }
  return parts.join('');
}

function keyArgument(strings: ArgString[]): { path: string; value: string } {
  const found = KEY_ORDER.map((keys) => strings.find((s) => keys.has(s.key))).find((s) => s !== undefined) ?? strings[0];
  return found === undefined ? { path: '', value: '' } : { path: found.path, value: found.value };
}

/** Written like an environment variable (`DATABASE_URL`, `HOME`): upper case, so `env: "production"` is not one. */
function isVariableName(value: string): boolean {
  if (value.length === 0 || value.length > 128) return false;
  return [...value].every((c, i) => c === '_' || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9'));
}

/** `readFile`, `read_file`, `fs__read-file`, `HTTPRequest` → read, file / http, request (lower case). */
export function toolWords(tool: string): string[] {
  const words: string[] = [];
  let word = '';
  const name = tool.slice(0, 128);
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    const upper = c >= 'A' && c <= 'Z';
    const alnum = upper || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    const prev = name[i - 1];
    const nextLower = name[i + 1] !== undefined && name[i + 1]! >= 'a' && name[i + 1]! <= 'z';
    const boundary = upper && prev !== undefined && ((prev >= 'a' && prev <= 'z') || (prev >= 'A' && prev <= 'Z' && nextLower));
    if (!alnum || boundary) {
      if (word !== '') words.push(word);
      word = '';
    }
    if (alnum) word += c.toLowerCase();
  }
  if (word !== '') words.push(word);
  return words;
}
