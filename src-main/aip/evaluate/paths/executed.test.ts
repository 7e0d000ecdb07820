import { describe, expect, it } from 'vitest';
import { ProtectedPathMatcher } from '../protected-paths/index.js';
import { isCommandKey, isExecutingTool, nameParts } from './executed.js';

describe('executed arguments: which strings a tool runs as commands', () => {
  it('splits names into lowercase word parts at separators, camelCase and after NFKC', () => {
    expect(nameParts('runCommand')).toEqual(['run', 'command']);
    expect(nameParts('RUN_COMMAND')).toEqual(['run', 'command']);
    expect(nameParts('mcp__box__shell-exec')).toEqual(['mcp', 'box', 'shell', 'exec']);
    expect(nameParts('HTTPRequest')).toEqual(['http', 'request']);
    expect(nameParts('ｒｕｎ_ｃｏｄｅ')).toEqual(['run', 'code']);
    expect(nameParts('new_str')).toEqual(['new', 'str']);
  });

  it.each([
    'run_command', 'execute_command', 'shell_exec', 'bash', 'terminal', 'exec', 'run_tests', 'runScript', 'python_exec',
    'start_process', 'interact_with_process', 'mcp__sandbox__bash', 'desktop.execute_command', 'RunPowerShell', 'runcommand',
    'executecommand', 'run\u200bcommand', 'ＢＡＳＨ', 'eval_js', 'spawn',
  ])('tool %s runs what it is given', (tool) => {
    expect(isExecutingTool(tool)).toBe(true);
  });

  it.each(['write_file', 'create_file', 'edit_file', 'str_replace_editor', 'read_text_file', 'copy', 'search_files', 'move_file', 'truncate', 'create_directory'])(
    'tool %s does not',
    (tool) => {
      expect(isExecutingTool(tool)).toBe(false);
    },
  );

  it.each(['command', 'cmd', 'commands', 'script', 'shell', 'exec', 'run', 'command_line', 'commandLine', 'cmdline', 'args', 'argv', 'shellCommand', 'pre-command', 'entrypoint'])(
    'key %s names a command',
    (key) => {
      expect(isCommandKey(key)).toBe(true);
    },
  );

  it.each(['content', 'text', 'new_str', 'newText', 'file_text', 'path', 'description', 'runtime', 'arguments', 'body'])('key %s does not', (key) => {
    expect(isCommandKey(key)).toBe(false);
  });

  it('a string is executed by its tool, by any command key on its path, or when the tool is not known (as the matcher applies it)', () => {
    const m = new ProtectedPathMatcher(['~/.ssh'], { homeDir: '/home/u', cwd: '/work/project', realpath: () => null });
    const unknowable = '$(BUILD)/main.o';
    const executed = (tool: string | undefined, args: unknown) => m.find(args, tool === undefined ? undefined : { tool })?.reason === 'unknowable';
    expect(executed('run_command', { cwd: unknowable })).toBe(true);
    expect(executed('write_file', { content: unknowable })).toBe(false);
    expect(executed('write_file', { edits: [{ newText: unknowable }] })).toBe(false);
    expect(executed('write_file', { steps: [{}, {}, { run: unknowable }] })).toBe(true);
    expect(executed('write_file', { script: { body: unknowable } })).toBe(true);
    expect(executed('spawn_job', { argv: ['a', 'b', 'c', unknowable] })).toBe(true);
    expect(executed(undefined, { content: unknowable })).toBe(true);
  });

  it('the matcher refuses an unknowable path in content only when told the tool does not run it', () => {
    const m = new ProtectedPathMatcher(['~/.ssh'], { homeDir: '/home/u', cwd: '/work/project', realpath: () => null });
    const args = { path: 'Makefile', content: '$(BUILD)/main.o: main.c' };
    expect(m.find(args)).toMatchObject({ reason: 'unknowable', argumentPath: 'args.content' });
    expect(m.find(args, { tool: 'run_command' })).toMatchObject({ reason: 'unknowable', argumentPath: 'args.content' });
    expect(m.find(args, { tool: 'write_file' })).toBeNull();
    expect(m.find({ path: 'x', command: '$(BUILD)/main.o' }, { tool: 'write_file' })).toMatchObject({ reason: 'unknowable', argumentPath: 'args.command' });
    // A command key does not reach its siblings.
    expect(m.find({ command: 'make', content: '$(BUILD)/main.o' }, { tool: 'write_file' })).toBeNull();
    expect(m.find({ content: 'cd "$(git rev-parse --show-toplevel)" && cat ~/.ssh/id_rsa' }, { tool: 'write_file' })).toMatchObject({ reason: 'protected_path' });
  });
});
