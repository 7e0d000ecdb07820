import { normalizeName } from '../../../../src-shared/policy/normalize.js';

/*
 * Which argument strings a tool plausibly runs as a command (docs/protected-paths.md "Output
 * that cannot be known").
 *
 * The protected-path matcher reads every string as a shell command, and refuses one in which a
 * substitution or variable whose value cannot be known makes up part of a path (`$(tool)/x`).
 * That rule is for strings a tool will run. A file's content (`write_file` of a Makefile holding
 * `$(BUILD)/main.o`) is not run by being written; running it later is a call of its own, checked
 * then. So the rule applies only where this module says "executed"; knowable expansions are
 * checked in every string regardless.
 *
 * A string is executed when:
 * - the tool's name says it runs what it is given: a word part such as run, exec, shell, bash,
 *   sh, cmd, command, terminal, eval, spawn, process, python, node (`run_command`,
 *   `execute_command`, `shell_exec`, `runScript`, `mcp__box__bash`), or text that is one of
 *   exec/shell/bash/command/terminal/subprocess/powershell, or a name starting with `run`
 *   (`runcommand`, `runpy`: names without separators);
 * - or any key on its path names a command: a word part such as command(s), cmd, cmdline,
 *   script(s), shell, exec, run, args, argv, eval, entrypoint (`command`, `commandLine`,
 *   `command_line`, `args[1]`, `steps[0].run`), or text that is command/exec/shell/cmdline
 *   (`shellcommand`);
 * - or nothing is known of the call (no tool name): fail closed.
 *
 * Names are compared by word parts: split at `_`, `-`, `.`, `/`, blanks and camelCase
 * boundaries, after NFKC and lowercasing (normalizeName, §4.1). Being wrong towards "executed"
 * only refuses what every string was refused for before; the word lists lean that way
 * (`process_image` counts as executed).
 */

/** Word parts of a tool name that mean the tool runs its input. */
const TOOL_WORDS = new Set([
  'run', 'runs', 'exec', 'execute', 'executes', 'execution', 'shell', 'bash', 'sh', 'zsh', 'fish', 'ksh', 'pwsh', 'powershell',
  'cmd', 'command', 'commands', 'terminal', 'console', 'tty', 'pty', 'eval', 'evaluate', 'spawn', 'process', 'subprocess',
  'launch', 'repl', 'interpreter', 'python', 'python3', 'node', 'deno', 'ruby', 'perl', 'php', 'osascript', 'applescript',
]);
/** Text that means the same inside a tool name written without separators. */
const TOOL_TEXT = ['exec', 'shell', 'bash', 'command', 'terminal', 'subprocess', 'powershell'];

/** Word parts of a key whose value is run as (part of) a command. */
const KEY_WORDS = new Set([
  'command', 'commands', 'cmd', 'cmds', 'cmdline', 'commandline', 'script', 'scripts', 'shell', 'exec', 'execute', 'run',
  'args', 'argv', 'eval', 'entrypoint', 'bash', 'sh', 'pwsh', 'powershell',
]);
/** Text that means the same inside a key written without separators (not `script`: `description`). */
const KEY_TEXT = ['command', 'exec', 'shell', 'cmdline'];

/** A name's word parts, lowercased: `runCommand`, `run-command`, `RUN_COMMAND` → run, command. */
export function nameParts(name: string): string[] {
  const spaced = name
    .normalize('NFKC')
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  return normalizeName(spaced)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((p) => p !== '');
}

function named(parts: readonly string[], words: ReadonlySet<string>, texts: readonly string[]): boolean {
  if (parts.some((p) => words.has(p))) return true;
  const compact = parts.join('');
  return texts.some((t) => compact.includes(t));
}

/*
 * Every call asks about its tool, and every key of its arguments: a few distinct names, asked
 * about again and again on the proxy's hot path, so the answers are kept (bounded: at the cap the
 * memo starts over, so a flood of odd keys cannot freeze it without the tool's own names).
 */
const MEMO_CAP = 4096;
const executingTools = new Map<string, boolean>();
const commandKeys = new Map<string, boolean>();

function memo(cache: Map<string, boolean>, name: string, compute: (parts: string[]) => boolean): boolean {
  let answer = cache.get(name);
  if (answer === undefined) {
    answer = compute(nameParts(name));
    // Full (an agent can send thousands of odd keys): start over rather than keep only the first.
    if (cache.size >= MEMO_CAP) cache.clear();
    cache.set(name, answer);
  }
  return answer;
}

/** Whether a tool of this name runs what it is given (see the header). */
export function isExecutingTool(tool: string): boolean {
  return memo(executingTools, tool, (parts) => named(parts, TOOL_WORDS, TOOL_TEXT) || parts.join('').startsWith('run'));
}

/** Whether the value under this key is run as a command (see the header). */
export function isCommandKey(key: string): boolean {
  return memo(commandKeys, key, (parts) => named(parts, KEY_WORDS, KEY_TEXT));
}
