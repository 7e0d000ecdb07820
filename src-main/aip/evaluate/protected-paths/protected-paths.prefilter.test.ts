import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../../testing/temp.js';
import { ColdWords } from '../paths/cold-words.js';
import { homeWithProject } from './testing/home.js';
import { ProtectedPathMatcher } from './index.js';

// docs/protected-paths.md "Cost and file-system lookups": the pre-filters that let a long text pass without joining, hashing or
// looking up most of its words (cold plain words, cold glob segments) must never hide a match.

const temp = useTempDirs('silas-prefilter-');

const world = () => homeWithProject(temp());

const prose = 'export function f0(a: number): number { return a * 0; } // see ./docs/f0.md\n'.repeat(20);

describe('ColdWords', () => {
  const cold = new ColdWords(new Set(['tmp', 'home', 'u', '.ssh', 'credentials', 'hosts.yml']), false);

  it('a plain word is cold unless it or its dot-stripped form could be a hot segment', () => {
    const isCold = (w: string) => cold.isColdPlain(w, 0, w.length);
    expect(['export', 'f0', 'number', 'a-b+c_d', 'docs.md', 'x'].filter((w) => !isCold(w))).toEqual([]);
    // Hot, or not plain (a separator, a leading dot, `:`/`=`/`,`/`~`/`$` give variants or expansions, non-ASCII folds).
    expect(['home', 'u', 'credentials', 'credentials.', 'credentials..', 'hosts.yml', '.ssh', 'docs/x', '~', '$HOME', 'a:b', 'a=b', 'a,b', 'hóme', ''].filter(isCold)).toEqual([]);
  });

  it('folds case where the platform does', () => {
    const folding = new ColdWords(new Set(['credentials']), true);
    expect(folding.isColdPlain('CREDENTIALS', 0, 11)).toBe(false);
    expect(cold.isColdPlain('Credentialz', 0, 11)).toBe(true);
  });

  it('naive words are the NAIVE_SPLIT words minus the cold plain ones', () => {
    const text = 'cat "a b" (home) [u]; x=1,credentials. f0 | tee ~/.ssh/k\t$HOME/u';
    const seen: string[] = [];
    cold.naiveWords(text, (w) => seen.push(w));
    const expected = text.split(/[\s"'`|&;<>(){}[\],]+/).filter((w) => w !== '' && !cold.isColdPlain(w, 0, w.length));
    expect(seen).toEqual(expected);
    expect(seen).toEqual(expect.arrayContaining(['home', 'u', 'x=1', 'credentials.', '~/.ssh/k', '$HOME/u']));
    expect(seen).not.toContain('cat');
  });
});

describe('ProtectedPathMatcher pre-filters never hide a match', () => {
  it('a long text of cold words still finds the one protected path in it', () => {
    const { home, cwd } = world();
    const matcher = new ProtectedPathMatcher(['~/.ssh', '.env'], { homeDir: home, cwd });
    expect(matcher.find({ path: 'src/a.ts', content: prose }, { tool: 'write_file' })).toBeNull();
    for (const needle of ['../.ssh/id_rsa', '~/.ssh', '.env', 'src/.env', '$HOME/.ssh', '../.s*/id_rsa', '../.ss?/id_rsa', '../.[s]sh', 'src/.e*']) {
      const found = matcher.find({ path: 'src/a.ts', content: `${prose}cat ${needle}\n${prose}` }, { tool: 'write_file' });
      expect({ needle, found }).toMatchObject({ needle, found: { reason: 'protected_path' } });
    }
  });

  it('globs that cannot name a protected segment stay allowed (a wildcard does not match a leading dot)', () => {
    const { home, cwd } = world();
    const matcher = new ProtectedPathMatcher(['~/.ssh', '.env'], { homeDir: home, cwd });
    for (const command of ['cat src/*.ts', 'ls ../*/x', 'grep -r x src/**', 'cat [a-z]*.md']) {
      expect({ command, found: matcher.find({ command }, { tool: 'run_command' }) }).toEqual({ command, found: null });
    }
  });

  it('every word matches when a working directory is itself protected', () => {
    const { home } = world();
    const matcher = new ProtectedPathMatcher(['~/.ssh'], { homeDir: home, cwd: join(home, '.ssh') });
    // Starting with `../..` the whole string leaves ~/.ssh (and an array has no key to match):
    // its plain words show the match.
    expect(matcher.find(['../.. just some words'], { tool: 'write_file' })).toMatchObject({ reason: 'protected_path', protectedPath: '~/.ssh', candidate: expect.stringMatching(/\/\.ssh\/(?:just|some|words)$/) });
  });

  it('a bare `cd` (to $HOME) or `cd -` names a directory that is no word: its words are still joined with it', () => {
    const { root, home } = world();
    const outside = join(root, 'outside');
    mkdirSync(outside, { recursive: true });
    const matcher = new ProtectedPathMatcher(['~'], { homeDir: home, cwd: outside });
    expect(matcher.find({ command: 'ls notes' }, { tool: 'run_command' })).toBeNull();
    // The whole string joined with $HOME would match too; starting with `../` it leaves $HOME,
    // so only its words under $HOME (`cd`, `cat`, `notes`: none names a protected segment) show the read.
    expect(matcher.find({ command: '../.. ; cd && cat notes' }, { tool: 'run_command' })).toMatchObject({ reason: 'protected_path', protectedPath: '~', candidate: expect.stringMatching(/\/home\/u\/(?:cd|cat|notes)$/) });
    expect(matcher.find({ command: '../.. ; cd ~ && cd /tmp && cd - && cat notes' }, { tool: 'run_command' })).toMatchObject({ reason: 'protected_path', protectedPath: '~' });
  });

  it('a cold word that is a symlink into a protected directory is still resolved when it could be opened', () => {
    const { home, cwd } = world();
    symlinkSync(join(home, '.ssh'), join(cwd, 'keys'));
    const matcher = new ProtectedPathMatcher(['~/.ssh'], { homeDir: home, cwd });
    // `keys` is a whole value, `keys/id_rsa` holds a separator: both are physical candidates.
    expect(matcher.find({ path: 'keys' }, { tool: 'read_file' })).toMatchObject({ reason: 'protected_path' });
    expect(matcher.find({ command: `${prose} cat keys/id_rsa` }, { tool: 'run_command' })).toMatchObject({ reason: 'protected_path' });
  });

  it('`./` before a name changes nothing: a symlink behind `./keys/…` is followed, listed or not', () => {
    const { home, cwd } = world();
    symlinkSync(join(home, '.ssh'), join(cwd, 'keys'));
    const matcher = new ProtectedPathMatcher(['~/.ssh'], { homeDir: home, cwd });
    // Enough `./` names in the working directory that it is listed before the link is met.
    const names = Array.from({ length: 20 }, (_, i) => `./notes${i}.md`).join(' ');
    for (const link of ['./keys/id_rsa', '././keys/id_rsa', './/keys/id_rsa', './keys']) {
      expect({ link, found: matcher.find({ path: 'src/a.md', content: `see ${names} and ${link}` }, { tool: 'write_file' }) }).toMatchObject({ link, found: { reason: 'protected_path', via: 'realpath' } });
    }
    expect(matcher.find({ path: 'src/a.md', content: `see ${names} and ./src/x` }, { tool: 'write_file' })).toBeNull();
  });

  it('a `cd` into a symlinked directory: its plain words are joined with where the link leads', () => {
    const { home, cwd } = world();
    symlinkSync(join(home, '.ssh'), join(cwd, 'keys'));
    const matcher = new ProtectedPathMatcher(['~/.ssh'], { homeDir: home, cwd });
    // `keys` and `id_rsa` are plain words naming no protected segment; `keys` (a word inside a
    // longer string) is not looked up itself, only as the directory `cd` enters. Starting with
    // `../..`, the whole string joined with that directory leaves it.
    expect(matcher.find({ command: `../.. ; ${prose} cd keys && cat id_rsa` }, { tool: 'run_command' })).toMatchObject({
      reason: 'protected_path',
      protectedPath: '~/.ssh',
      candidate: expect.stringMatching(/\/\.ssh\/[a-z_]+$/),
    });
  });
});
