import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../../testing/temp.js';
import { createPolicyEngine } from '../../engine.js';
import { loadPolicyText } from '../../policy/load.js';
import { PathBases } from '../paths/path-bases.js';

// The ways around a literal path (docs/protected-paths.md "Shell commands", "Relative paths: every
// directory the server may use"), from the attacker's side: an agent that may run commands or pass
// paths to a tool tries to reach a protected file without ever writing its path literally.

const temp = useTempDirs('silas-walkaround-');

function world() {
  const root = realpathSync(temp());
  const home = join(root, 'home', 'u');
  const project = join(root, 'work', 'project');
  const data = join(root, 'data');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(join(data, 'secrets'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY');
  writeFileSync(join(data, 'secrets', 'private.txt'), 'secret');
  writeFileSync(join(data, 'notes.txt'), 'harmless');
  return { root, home, project, data };
}

function evaluator(entries: string[], options: { home: string; cwd: string; pathBases?: PathBases; environment?: Record<string, string> }) {
  const yaml = `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: walkaround\nspec:\n  allowed_tools: [run_command, execute_command, bash, read_file, read_text_file, copy, write_file, create_file, edit_file, str_replace_editor]\n  protected_paths:\n${entries.map((e) => `    - ${JSON.stringify(e)}\n`).join('')}`;
  const loaded = loadPolicyText(yaml, { sourcePath: null });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return createPolicyEngine(loaded.policy, { homeDir: options.home, cwd: options.cwd, pathBases: options.pathBases, environment: options.environment }).evaluator;
}

const call = (tool: string, args: unknown) => ({ method: 'tools/call', tool, args });

describe('item 8: protected paths through nested shells, substitutions, cd and argument pairs', () => {
  it.each([
    ['a nested shell', "bash -c 'cd ~ && cat .ssh/id_rsa'"],
    ['a shell inside a shell', `sh -c "bash -c 'cd ~ && cat .ssh/id_rsa'"`],
    ['a remote-style quoted script', "ssh localhost 'cd ~; tar czf - .ssh'"],
    ['eval of a string', 'eval "cd ~ && cat .ssh/id_rsa"'],
    ['$(echo ~)', 'cat $(echo ~)/.ssh/id_rsa'],
    ['backquotes', 'cat `echo ~`/.ssh/id_rsa'],
    ['quoted substitution', 'cat "$(echo ~)/.ssh/id_rsa"'],
    ['printf %s', "cat \"$(printf '%s' ~)\"/.ssh/id_rsa"],
    ['substitution inside a substitution', 'cat $(echo $(echo ~))/.ssh/id_rsa'],
    ['$(pwd) after cd', 'cd ~ && cat $(pwd)/.ssh/id_rsa'],
    ['$PWD after cd', 'cd ~; cat "$PWD/.ssh/id_rsa"'],
    ['cd then a relative path', 'cd ~ && cat .ssh/id_rsa'],
    ['two cds in sequence', 'cd ~ && cd .ssh && cat id_rsa'],
    ['a cd that fails in between', 'cd ~; cd /nonexistent; cat .ssh/id_rsa'],
    ['cd into a substitution', 'cd "$(echo ~)" && cat .ssh/id_rsa'],
    ['pushd', 'pushd ~ >/dev/null && base64 .ssh/id_rsa'],
  ])('%s is refused with -32007', (_label, command) => {
    const { home, project } = world();
    const decision = evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call('run_command', { command }));
    expect(decision).toMatchObject({ decision: 'BLOCK', errorCode: -32007, failedArg: 'args.command' });
  });

  it.each([
    ['path + filename', { path: '~', filename: '.ssh/id_rsa' }],
    ['filename before path', { filename: '.ssh/id_rsa', path: '~' }],
    ['arbitrary key names', { a: 'HOME_ABS', b: '.ssh/id_rsa' }],
    ['$HOME as the directory', { location: '$HOME', name: '.ssh/id_rsa' }],
    ['a file: URL as the directory', { where: 'file://HOME_ABS', what: '.ssh/id_rsa' }],
    ['an argv array', { argv: ['~', '.ssh/id_rsa'] }],
    ['the pair one level down', { target: { folder_path: '~', entry: { name: '.ssh/id_rsa' } } }],
  ])('directory + file-name pair (%s) is refused with -32007', (_label, args) => {
    const { home, project } = world();
    const concrete = JSON.parse(JSON.stringify(args).replaceAll('HOME_ABS', home)) as unknown;
    const decision = evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call('copy', concrete));
    expect(decision).toMatchObject({ decision: 'BLOCK', errorCode: -32007 });
  });

  it.each([
    ['glued to a path', 'cat $(some_tool --where)/.ssh/id_rsa'],
    ['in backquotes, glued to a path', 'cat `lookup`/id_rsa'],
    ['as the directory of cd', 'cd "$(git rev-parse --show-toplevel)" && cat id_rsa'],
    ['after a known prefix', 'tar czf - /home/$(cat who)/.ssh'],
  ])('an unknowable substitution %s is refused, saying why', (_label, command) => {
    const { home, project } = world();
    const decision = evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call('run_command', { command }));
    expect(decision).toMatchObject({ decision: 'BLOCK', errorCode: -32007 });
    expect(decision.reason).toMatch(/cannot be known/);
  });

  it('a name-valued substitution stands for any one name', () => {
    const { home, project } = world();
    const users = join(home, '..');
    const decision = evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call('run_command', { command: `cat ${users}/$(whoami)/.ssh/id_rsa` }));
    expect(decision).toMatchObject({ decision: 'BLOCK', errorCode: -32007 });
  });

  it.each([
    "bash -c 'cd src && npm test'",
    'cd src && cat index.ts',
    'echo "built on $(date)" > build.txt',
    'git commit -m "$(cat message.txt)"',
    'ls $(pwd)/src',
    'cat $(echo src)/index.ts',
    'sh -c "echo hello; ls -la"',
  ])('legitimate command %s is allowed', (command) => {
    const { home, project } = world();
    expect(evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call('run_command', { command }))).toMatchObject({ decision: 'ALLOW' });
  });

  it('legitimate directory + file pairs are allowed', () => {
    const { home, project } = world();
    const ev = evaluator(['~/.ssh'], { home, cwd: project });
    expect(ev.evaluate(call('copy', { path: project, filename: 'src/index.ts' }))).toMatchObject({ decision: 'ALLOW' });
    expect(ev.evaluate(call('copy', { from: '~/Documents', name: 'report.pdf' }))).toMatchObject({ decision: 'ALLOW' });
  });
});

describe('item 13: relative paths against every directory the server may use', () => {
  it("a path relative to the server's allowed directory is refused although the proxy runs from /", () => {
    const { home, data } = world();
    const bases = new PathBases([data]);
    const ev = evaluator([join(data, 'secrets')], { home, cwd: '/', pathBases: bases });
    expect(ev.evaluate(call('read_text_file', { path: 'secrets/private.txt' }))).toMatchObject({ decision: 'BLOCK', errorCode: -32007 });
    expect(ev.evaluate(call('read_text_file', { path: './secrets/../secrets/private.txt' }))).toMatchObject({ decision: 'BLOCK', errorCode: -32007 });
    expect(ev.evaluate(call('read_text_file', { path: 'notes.txt' }))).toMatchObject({ decision: 'ALLOW' });
  });

  it('a root announced after the policy loaded counts at once', () => {
    const { home, data } = world();
    const bases = new PathBases();
    const ev = evaluator([join(data, 'secrets')], { home, cwd: '/', pathBases: bases });
    expect(ev.evaluate(call('read_text_file', { path: 'secrets/private.txt' }))).toMatchObject({ decision: 'ALLOW' });
    bases.add(data);
    expect(ev.evaluate(call('read_text_file', { path: 'secrets/private.txt' }))).toMatchObject({ decision: 'BLOCK', errorCode: -32007 });
  });

  it('more roots than can be followed fail closed for relative paths only', () => {
    const { home, data } = world();
    const bases = new PathBases(Array.from({ length: 300 }, (_, i) => `/srv/root${i}`));
    const ev = evaluator([join(data, 'secrets')], { home, cwd: '/', pathBases: bases });
    expect(ev.evaluate(call('read_text_file', { path: 'notes.txt' }))).toMatchObject({ decision: 'BLOCK', errorCode: -32007 });
    expect(ev.evaluate(call('read_text_file', { path: join(data, 'notes.txt') }))).toMatchObject({ decision: 'ALLOW' });
  });
});

describe('item 8: protected paths through shell variables', () => {
  // HOME_ABS stands for the home directory, USERS for its parent.
  const concrete = (command: string, home: string) => command.replaceAll('HOME_ABS', home).replaceAll('USERS', join(home, '..'));

  it.each([
    ['an assignment', 'X=~; cat $X/.ssh/id_rsa'],
    ['export', 'export D=~; cat "$D/.ssh/id_rsa"'],
    ['${X} braces', 'D=HOME_ABS; cat ${D}/.ssh/id_rsa'],
    ['a variable holding .ssh joined to ~/', 'K=.ssh; cat ~/$K/id_rsa'],
    ['declare -r', 'declare -r R=~; tar czf - $R/.ssh'],
    ['local and readonly', 'readonly A=~; local B=.ssh; cat "$A/$B/id_rsa"'],
    ['several assignments on one line', 'A=USERS B=u; cat $A/$B/.ssh/id_rsa'],
    ['a chain of variables', 'H=~; Y=$H/.ssh; cat $Y/id_rsa'],
    ['a value from a known substitution', 'X=$(echo ~); cat $X/.ssh/id_rsa'],
    ['an assignment inside bash -c', "bash -c 'X=~; cat $X/.ssh/id_rsa'"],
    ['an assignment prefixing bash -c', "D=~ bash -c 'cat $D/.ssh/id_rsa'"],
    ['an exported variable read by a nested shell', "export D=~; sh -c 'cat $D/.ssh/id_rsa'"],
    ['a variable expanded into a double-quoted nested script', 'X=~; bash -c "cd $X && cat .ssh/id_rsa"'],
    ['eval of a variable', 'X=~; eval "cat $X/.ssh/id_rsa"'],
    ['${X:-default}', 'cat ${NOPE_NOT_SET:-~/.ssh}/id_rsa'],
    ['${X-default}', 'cat "${NOPE_NOT_SET-~}/.ssh/id_rsa"'],
    ['${X:=default}', ': ${S:=~}; cat $S/.ssh/id_rsa'],
    ['a for loop over a directory', 'for d in /tmp ~; do cat $d/.ssh/id_rsa; done'],
    ['a for loop over the parent of home', 'for d in /tmp USERS; do cat $d/u/.ssh/id_rsa; done'],
    ['cd into a variable', 'X=~; cd "$X" && cat .ssh/id_rsa'],
    ['HOME reassigned, then ~', 'HOME=USERS; cat ~/u/.ssh/id_rsa'],
    ['HOME reassigned, then a bare cd', 'HOME=USERS; cd; cat u/.ssh/id_rsa'],
    ['positional arguments of sh -c', "sh -c 'cat \"$1\"/.ssh/id_rsa' sh ~"],
    ['+= appending', 'P=~; P+=/.ssh; cat $P/id_rsa'],
  ])('%s is refused with -32007', (_label, command) => {
    const { home, project } = world();
    const decision = evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call('run_command', { command: concrete(command, home) }));
    expect(decision).toMatchObject({ decision: 'BLOCK', errorCode: -32007, failedArg: 'args.command' });
  });

  it.each([
    ['a variable not assigned in the script, glued to a path', 'cat $SOMEWHERE/.ssh/id_rsa'],
    ['a value from an unknowable substitution', 'X=$(git rev-parse --show-toplevel); cat $X/id_rsa'],
    ['a variable as the directory of cd', 'cd "$PROJECT_ROOT" && cat id_rsa'],
    ['an operation on the value', 'X=/tmp/x; cat ${X%/*}/.ssh/id_rsa'],
    ['an array', 'X=(~); cat $X/.ssh/id_rsa'],
    ['a for loop without a word list', 'for d; do cat $d/.ssh/id_rsa; done'],
  ])('without a known environment, %s is refused, saying why', (_label, command) => {
    const { home, project } = world();
    const decision = evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call('run_command', { command }));
    expect(decision).toMatchObject({ decision: 'BLOCK', errorCode: -32007 });
    expect(decision.reason).toMatch(/cannot be known/);
  });

  it.each([
    ['a variable the environment provides', 'cat $SECRETS/id_rsa'],
    ['an environment variable in braces as a cd target', 'cd "${SECRETS}" && cat id_rsa'],
    ['a variable read from input', 'read X < where.txt; cat $X/.ssh/id_rsa'],
    ['a value from an unknowable substitution', 'X=$(cat where.txt); cat "$X/.ssh/id_rsa"'],
    ['an assignment that may not run keeps the unset value', 'if false; then X=/tmp; fi; cat $HOME$X/.ssh/id_rsa'],
    ['a loop body using a value assigned later in the loop', 'for i in 1 2; do cat $D/.ssh/id_rsa; D=~; done'],
    ['a loop body using a value the loop changes afterwards', 'X=/tmp; for i in 1 2; do cat $HOME$X/.ssh/id_rsa; X=; done'],
    ['a function using a value assigned before it is called', 'f() { cat $K/.ssh/id_rsa; }; K=~; f'],
    ['CDPATH set by the script', 'CDPATH=/tmp:~; cd .ssh && cat id_rsa'],
    ['OLDPWD set by the script', 'OLDPWD=~; cd -; cat .ssh/id_rsa'],
    ['an unexported variable that a nested shell sees unset', "X=/nothing; bash -c 'cat $HOME$X/.ssh/id_rsa'"],
  ])('with the server environment known, %s is refused with -32007', (_label, command) => {
    const { home, project } = world();
    const environment = { HOME: home, USER: 'u', TMPDIR: '/tmp', SECRETS: join(home, '.ssh') };
    const decision = evaluator(['~/.ssh'], { home, cwd: project, environment }).evaluate(call('run_command', { command }));
    expect(decision).toMatchObject({ decision: 'BLOCK', errorCode: -32007, failedArg: 'args.command' });
  });

  it.each([
    'X=build; mkdir -p $X/out',
    'echo $USER',
    'git commit -m "$MSG"',
    'export NODE_ENV=production; npm run build',
    'OUT=dist && rm -rf "$OUT"/*',
    'for f in src/*.ts; do cp $f $f.bak; done',
    "bash -c 'X=src; ls $X'",
    'echo "${GREETING:-hello}"',
    'name=report; cat docs/$name.md > out/${name}.txt',
  ])('without a known environment, legitimate command %s is allowed', (command) => {
    const { home, project } = world();
    expect(evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call('run_command', { command }))).toMatchObject({ decision: 'ALLOW' });
  });

  it.each([
    'cd "$TMPDIR" && tar xf bundle.tar',
    'ls $TMPDIR/cache/$USER',
    'cat $UNSET_IN_ENVIRONMENT/notes.txt',
    "sh -c 'cd $TMPDIR; ls'",
    'echo "fee: $5.50"',
  ])('with a known harmless environment, legitimate command %s is allowed', (command) => {
    const { home, project } = world();
    const environment = { HOME: home, USER: 'u', TMPDIR: '/tmp' };
    expect(evaluator(['~/.ssh'], { home, cwd: project, environment }).evaluate(call('run_command', { command }))).toMatchObject({ decision: 'ALLOW' });
  });
});

describe('item 8: unknowable output is refused only in strings that are run as commands', () => {
  // A file's content is not run by writing it; running it later is a call of its own, checked
  // then. So an unknowable part of a path in content is a stand-alone word; knowable parts are
  // still expanded and checked.
  const MAKEFILE = 'BUILD := build\n$(BUILD)/main.o: main.c\n\tcc -c main.c -o $(BUILD)/main.o\n';
  const SCRIPT = '#!/bin/sh\nROOT=$(git rev-parse --show-toplevel)\ncat $ROOT/README.md\n';
  const NPM_BIN = '$(npm bin)/eslint .';

  it.each([
    ['write_file', 'content', MAKEFILE],
    ['write_file', 'content', SCRIPT],
    ['write_file', 'content', NPM_BIN],
    ['create_file', 'text', MAKEFILE],
    ['create_file', 'text', SCRIPT],
    ['edit_file', 'new_str', NPM_BIN],
    ['str_replace_editor', 'new_str', SCRIPT],
  ])('%s writing %s with an unknowable part of a path is allowed (%#)', (tool, key, text) => {
    const { home, project } = world();
    const decision = evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call(tool, { path: 'build/Makefile', [key]: text }));
    expect(decision).toMatchObject({ decision: 'ALLOW', errorCode: null });
  });

  it('edits nested in an array are written, not run, too', () => {
    const { home, project } = world();
    const args = { path: 'scripts/lint.sh', edits: [{ oldText: 'eslint .', newText: NPM_BIN }] };
    expect(evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call('edit_file', args))).toMatchObject({ decision: 'ALLOW' });
  });

  it.each([
    ['a Makefile', MAKEFILE],
    ['a script', SCRIPT],
    ['$(npm bin)', NPM_BIN],
  ])('the same text (%s) as a run_command command is refused, saying why', (_label, command) => {
    const { home, project } = world();
    const decision = evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call('run_command', { command }));
    expect(decision).toMatchObject({ decision: 'BLOCK', errorCode: -32007, failedArg: 'args.command' });
    expect(decision.reason).toMatch(/cannot be known/);
  });

  it.each([
    ['execute_command', { command: SCRIPT }],
    ['bash', { input: NPM_BIN }],
    ['write_file', { path: 'x', command: NPM_BIN }],
    ['write_file', { path: 'x', script: { body: SCRIPT } }],
    ['write_file', { path: 'x', argv: ['sh', '-c', NPM_BIN] }],
  ])('a command-running tool or a command-like key (%s %j) still refuses it', (tool, args) => {
    const { home, project } = world();
    const decision = evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call(tool, args));
    expect(decision).toMatchObject({ decision: 'BLOCK', errorCode: -32007 });
    expect(decision.reason).toMatch(/cannot be known/);
  });

  it.each([
    ['$(echo ~)', 'cat $(echo ~)/.ssh/id_rsa'],
    ['a variable assigned ~', 'X=~; cat $X/.ssh/id_rsa'],
    ['cd ~ then a relative path', 'cd ~ && cat .ssh/id_rsa'],
    ['next to an unknowable substitution', 'ROOT=$(git rev-parse --show-toplevel)\ncat ~/.ssh/id_rsa $ROOT/README.md'],
  ])('a knowable walk-around (%s) inside write_file content is still refused', (_label, content) => {
    const { home, project } = world();
    for (const key of ['content', 'text', 'new_str']) {
      const decision = evaluator(['~/.ssh'], { home, cwd: project }).evaluate(call('write_file', { path: 'notes.sh', [key]: content }));
      expect(decision).toMatchObject({ decision: 'BLOCK', errorCode: -32007, failedArg: `args.${key}` });
      expect(decision.reason).toMatch(/touches protected path ~\/\.ssh/);
    }
  });
});
