import { describe, expect, it } from 'vitest';
import { CURRENT_DIR, readShell, UNKNOWN_OUTPUT, type ShellOptions } from './shell.js';

const HOME = '/home/u';

function options(extra: Partial<ShellOptions> = {}): ShellOptions {
  return { win: false, maxDepth: 4, expandHome: (w) => (w === '~' || w.startsWith('~/') ? HOME + w.slice(1) : w), ...extra };
}

describe('readShell: the words a shell would see', () => {
  it('reads nested scripts and substitutions, each distinct word once in first-read order', () => {
    expect(readShell("cd src && bash -c 'cd ../lib && cat f1.txt' && cat $(echo docs)/r1.md", options())).toEqual({
      words: ['cd', 'src', 'bash', '-c', 'cd ../lib && cat f1.txt', '../lib', 'cat', 'f1.txt', 'echo', 'docs', 'docs/r1.md'],
      dirs: ['src', '../lib'],
      unknowable: [],
      overflow: null,
    });
  });

  it('removes quotes and decodes escapes; a nested word is read again as a script', () => {
    expect(readShell(`cat 'a b' "c\\"d" e\\ f $'\\x41\\n'`, options()).words).toEqual(['cat', 'a b', 'a', 'b', 'c"d', 'e f', 'e', 'f', 'A\n', 'A']);
  });

  it("expands the script's own variables, `~` in assignments and `${X:-word}`", () => {
    expect(readShell('K=~/.ssh; cat "$K"/id_rsa ${K:-x}/y', options()).words).toEqual(['K=~/.ssh', 'cat', `${HOME}/.ssh/id_rsa`, `${HOME}/.ssh/y`]);
  });

  it('marks unknowable output glued to path text, and the current directory', () => {
    expect(readShell('cat $(tool)/x; cd "$(pwd)"; cat `echo ~`/z', options())).toEqual({
      words: ['tool', 'cat', `${UNKNOWN_OUTPUT}/x`, 'pwd', 'cd', CURRENT_DIR, 'echo', '~', `${HOME}/z`],
      dirs: [CURRENT_DIR],
      unknowable: [`${UNKNOWN_OUTPUT}/x`],
      overflow: null,
    });
  });

  it('gives a loop variable each of its words, and evaluates printf and name producers', () => {
    expect(readShell('for D in a b; do cat $D/f; done', options()).words).toEqual(['for', 'D', 'in', 'a', 'b', 'do', 'cat', 'a/f', 'b/f', 'done']);
    expect(readShell('cat $(printf %s/ a b)x $(date)/y', options()).words).toEqual(['printf', '%s/', 'a', 'b', 'date', 'cat', 'a/b/x', '*/y']);
  });

  it("gives `sh -c SCRIPT` its positional arguments", () => {
    expect(readShell("sh -c 'cat $1/f' sh /etc", options()).words).toEqual(['sh', '-c', 'cat $1/f', 'cat', '/etc/f', '/etc']);
  });

  it('records directories from cd, pushd, -C and --cwd=, a bare cd as home', () => {
    expect(readShell('git -C repo status --cwd=/srv/app; pushd ~; cd; cd -', options()).dirs).toEqual(['repo', '/srv/app', '~', HOME]);
  });

  it('reads a body again with what the script assigns after it', () => {
    expect(readShell('f() { cat $K/x; }; K=~/.ssh; f', options()).words).toContain(`${HOME}/.ssh/x`);
  });

  it('reads nested scripts no deeper than maxDepth', () => {
    const reading = readShell(`bash -c 'bash -c "bash -c cat\\ ~/.ssh/k"'`, options({ maxDepth: 1 }));
    expect(reading.words).toEqual(['bash', '-c', 'bash -c "bash -c cat\\ ~/.ssh/k"', 'bash -c cat\\ ~/.ssh/k']);
  });

  it('stops with an overflow when variables expand past the budget', () => {
    const script = `Y=${'y'.repeat(300)}; ${'cat $Y$Y$Y$Y$Y$Y$Y$Y; '.repeat(30)}`;
    expect(readShell(script, options()).overflow).toBe(`shell variables expanding to more than ${4 * script.length + 65_536} characters`);
  });

  it('keeps each distinct word of a long text once, however many times it repeats', () => {
    const line = 'export function f(a: number): number { return a; }\n';
    const reading = readShell(line.repeat(2000) + 'cat ~/.ssh/id_rsa', options());
    expect(reading.words).toEqual(['export', 'function', 'f', 'a:', 'number', ':', '{', 'return', 'a', '}', 'cat', '~/.ssh/id_rsa']);
  });
});
