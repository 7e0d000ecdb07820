import { existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../../testing/temp.js';
import { ProtectedPathMatcher } from './index.js';

// The fast paths of ProtectedPathMatcher (one-word strings, lstat walks, per-base name tables)
// must decide exactly as the general machinery does.

describe('ProtectedPathMatcher — fast paths agree with the general resolution', () => {
  const temp = useTempDirs('silas-protected-fast-');

  function world() {
    const root = realpathSync(temp());
    const home = join(root, 'home', 'u');
    const outside = join(root, 'outside');
    const cwd = join(root, 'work');
    mkdirSync(join(home, '.ssh', 'sub'), { recursive: true });
    mkdirSync(join(outside, 'dir'), { recursive: true });
    mkdirSync(join(cwd, 'src'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE');
    writeFileSync(join(outside, 'file'), 'x');
    writeFileSync(join(cwd, 'read'), 'x');
    symlinkSync(join(home, '.ssh'), join(outside, 'link'));
    symlinkSync(join(home, '.ssh'), join(cwd, 'keys'));
    symlinkSync(join(home, '.ssh', 'id_rsa'), join(cwd, 'key'));
    symlinkSync(join(home, '.ssh', 'new'), join(cwd, 'dangling'));
    symlinkSync(join(outside, 'loop-b'), join(outside, 'loop-a'));
    symlinkSync(join(outside, 'loop-a'), join(outside, 'loop-b'));
    return { root, home, outside, cwd };
  }

  it('the real filesystem and an injected realpath/readlink over it give the same findings', () => {
    const { home, outside, cwd } = world();
    const entries = ['~/.ssh', '.env', join(cwd, 'secret.txt')];
    const fast = new ProtectedPathMatcher(entries, { homeDir: home, cwd });
    // Injected lookups take the general path (no lstat walk).
    const general = new ProtectedPathMatcher(entries, {
      homeDir: home,
      cwd,
      realpath: (p) => {
        try {
          return existsSync(p) ? realpathSync.native(p) : null;
        } catch {
          return null;
        }
      },
      readlink: (p) => {
        try {
          return lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ? readlinkSync(p) : null;
        } catch {
          return null;
        }
      },
    });
    const names = Array.from({ length: 12 }, (_, i) => `a${i}.txt`);
    const cases: unknown[] = [
      { target: '/srv/data/reports/q1.csv', mode: 'read', limit: 100 },
      { path: 'read' },
      { path: 'keys' },
      { path: 'key' },
      { path: 'dangling' },
      { path: 'secret.txt' },
      { 'secret.txt': 1 },
      { path: 'src' },
      { path: 'src/missing/deeper' },
      { path: `${outside}/link/id_rsa` },
      { path: `${outside}/link` },
      { path: `${outside}/dir/../link/x` },
      { path: `${outside}/file/x` },
      { path: `${outside}/file/../link/id_rsa` },
      { path: `${outside}/missing/../link/id_rsa` },
      { path: `${outside}//dir///x/` },
      { path: `${outside}/./dir/./x` },
      { path: `${outside}/loop-a/x` },
      { path: `${cwd}/../home/u/.ssh` },
      { path: '/' },
      { path: '/..' },
      { path: 'q1.csv' },
      { path: '.env' },
      { path: 'x.env' },
      { path: '..' },
      { path: '.' },
      { cwd: outside, file: 'link' },
      { dir: `${outside}/link`, file: 'id_rsa' },
      // Enough names under one directory that it is listed (one lookup, not one per name): a directory that does not
      // exist settles its names by its own physical path — open, or inside ~/.ssh through a link.
      { dir: 'src/missing', files: names },
      { dir: `${outside}/link/new`, files: names },
      { command: `cd nowhere && cat ${names.join(' ')}` },
      { command: `cd dangling && cat ${names.join(' ')}` },
      { command: `cd keys/new/deeper && cat ${names.join(' ')}` },
    ];
    for (const args of cases) {
      expect({ args, finding: fast.find(args) }).toEqual({ args, finding: general.find(args) });
    }
    expect(fast.find({ dir: 'src/missing', files: names })).toBeNull();
    for (const command of [`cd dangling && cat ${names.join(' ')}`, `cd keys/new/deeper && cat ${names.join(' ')}`]) {
      expect(fast.find({ command })).toMatchObject({ reason: 'protected_path', protectedPath: '~/.ssh' });
    }
  });

  it('a symlink swapped in for the working directory between two calls is seen', () => {
    const { root, home } = world();
    const plain = join(root, 'plain');
    mkdirSync(plain);
    const link = join(root, 'cwd-link');
    symlinkSync(plain, link);
    const m = new ProtectedPathMatcher(['~/.ssh'], { homeDir: home, cwd: link });
    expect(m.find({ path: 'id_rsa' })).toBeNull();
    expect(m.find({ path: 'authorized_keys' })).toBeNull();
    rmSync(link);
    symlinkSync(join(home, '.ssh'), link);
    expect(m.find({ path: 'id_rsa' })).toMatchObject({ protectedPath: '~/.ssh', via: 'realpath' });
    expect(m.find({ path: 'authorized_keys' })).toMatchObject({ protectedPath: '~/.ssh', via: 'realpath' });
  });

  it('an ancestor of a path swapped for a symlink between two calls is seen', () => {
    const { root, home } = world();
    const dir = join(root, 'swap');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    const m = new ProtectedPathMatcher(['~/.ssh'], { homeDir: home, cwd: root });
    expect(m.find({ path: join(dir, 'id_rsa') })).toBeNull();
    rmSync(dir, { recursive: true });
    symlinkSync(join(home, '.ssh'), dir);
    expect(m.find({ path: join(dir, 'id_rsa') })).toMatchObject({ protectedPath: '~/.ssh', via: 'realpath' });
  });
});

describe('ProtectedPathMatcher — plain names under the working directory', () => {
  const opts = { homeDir: '/home/u', realpath: () => null };

  it('an absolute entry directly under cwd, as a key and as a value', () => {
    const m = new ProtectedPathMatcher(['/work/project/secret.txt'], { ...opts, cwd: '/work/project' });
    expect(m.find({ 'secret.txt': 1 })).toMatchObject({ location: 'key', candidate: '/work/project/secret.txt' });
    expect(m.find({ file: 'secret.txt' })).toMatchObject({ location: 'value', candidate: '/work/project/secret.txt' });
    expect(m.find({ file: 'secret.txt.bak' })).toBeNull();
    expect(m.find({ file: 'secret' })).toBeNull();
  });

  it('an entry deeper than cwd/name is not matched by the name', () => {
    const m = new ProtectedPathMatcher(['/work/project/config/secret.txt'], { ...opts, cwd: '/work/project' });
    expect(m.find({ file: 'config' })).toBeNull();
    expect(m.find({ file: 'config/secret.txt' })).not.toBeNull();
  });

  it('a multi-segment anywhere entry that ends at the name', () => {
    const m = new ProtectedPathMatcher(['config/secrets.json'], { ...opts, cwd: '/srv/app/config' });
    expect(m.find({ file: 'secrets.json' })).toMatchObject({ protectedPath: 'config/secrets.json' });
    expect(new ProtectedPathMatcher(['config/secrets.json'], { ...opts, cwd: '/srv/app' }).find({ file: 'secrets.json' })).toBeNull();
    expect(new ProtectedPathMatcher(['config/secrets.json'], { ...opts, cwd: '/srv/xconfig' }).find({ file: 'secrets.json' })).toBeNull();
  });

  it('a cwd inside a protected path: every name matches', () => {
    const m = new ProtectedPathMatcher(['~/.ssh'], { ...opts, cwd: '/home/u/.ssh' });
    expect(m.find({ file: 'anything' })).toMatchObject({ protectedPath: '~/.ssh' });
    expect(m.find({ anything: 1 })).toMatchObject({ protectedPath: '~/.ssh', location: 'key' });
    const env = new ProtectedPathMatcher(['.env'], { ...opts, cwd: '/srv/.env/x' });
    expect(env.find({ file: 'y' })).toMatchObject({ protectedPath: '.env' });
  });

  it('case-insensitive platforms fold the name', () => {
    const m = new ProtectedPathMatcher(['/Work/Project/Secret.txt', '.ENV'], { ...opts, cwd: '/work/project', platform: 'darwin' });
    expect(m.find({ file: 'SECRET.TXT' })).not.toBeNull();
    expect(m.find({ file: '.Env' })).toMatchObject({ protectedPath: '.ENV' });
  });

  it('glob entries and a glob cwd still match names', () => {
    expect(new ProtectedPathMatcher(['*.pem'], { ...opts, cwd: '/work' }).find({ file: 'key.pem' })).not.toBeNull();
    expect(new ProtectedPathMatcher(['/work/[ab]/secret'], { ...opts, cwd: '/work/a' }).find({ file: 'secret' })).not.toBeNull();
    expect(new ProtectedPathMatcher(['/w/[x]/secret'], { ...opts, cwd: '/w/[x]' }).find({ file: 'secret' })).not.toBeNull();
  });
});

describe('ProtectedPathMatcher — the segment pre-filter settles only words that cannot match', () => {
  const HOME = '/home/u';
  const opts = { homeDir: HOME, cwd: '/work/project', realpath: () => null };

  it('a word without a protected segment still matches under a directory that is itself protected', () => {
    const m = new ProtectedPathMatcher(['~/.ssh', '.env'], opts);
    expect(m.find({ dir: '~/.ssh', file: 'notes.txt' })).toMatchObject({ protectedPath: '~/.ssh' });
    // The working directory inside a protected one: only the word is there to report.
    expect(new ProtectedPathMatcher(['.env'], { ...opts, cwd: '/srv/.env/app' }).find({ file: 'notes.txt' })).toMatchObject({ protectedPath: '.env', argumentPath: 'args.file' });
    expect(m.find({ command: 'cd ~/.ssh && cat notes.txt' })).toMatchObject({ protectedPath: '~/.ssh' });
    expect(m.find({ command: 'cd /srv/app/.env && cat config' })).toMatchObject({ protectedPath: '.env' });
    expect(new ProtectedPathMatcher(['~/.ssh'], { ...opts, cwd: '/home/u/.ssh/sub' }).find({ file: 'notes.txt' })).toMatchObject({ protectedPath: '~/.ssh' });
  });

  it('a protected segment anywhere in a relative word, after `..`, or across the base and the word', () => {
    const m = new ProtectedPathMatcher(['~/.ssh', 'config/secrets.json'], opts);
    expect(m.find({ dir: '~', file: 'project/../.ssh/id_rsa' })).toMatchObject({ protectedPath: '~/.ssh' });
    expect(m.find({ command: 'cd ~/project && cat ../.ssh/id_rsa' })).toMatchObject({ protectedPath: '~/.ssh' });
    expect(m.find({ dir: '/srv/app/config', file: 'secrets.json' })).toMatchObject({ protectedPath: 'config/secrets.json' });
    expect(m.find({ dir: '/srv/app', file: 'x/config/secrets.json' })).toMatchObject({ protectedPath: 'config/secrets.json' });
    expect(m.find({ dir: '/srv/app', file: 'config/secrets.jsonx' })).toBeNull();
  });

  it('case-insensitive platforms fold the word before the lookup; an entry at the root protects every word', () => {
    expect(new ProtectedPathMatcher(['~/.ssh'], { ...opts, platform: 'darwin' }).find({ dir: '~', file: '.SSH/id_rsa' })).toMatchObject({ protectedPath: '~/.ssh' });
    expect(new ProtectedPathMatcher(['/'], opts).find({ file: 'anything' })).toMatchObject({ protectedPath: '/' });
  });
});

describe('ProtectedPathMatcher — joins stay linear in the size of the arguments', () => {
  const HOME = '/home/u';
  function matcher(maxComparisons: number) {
    return new ProtectedPathMatcher(['~/.ssh'], { homeDir: HOME, cwd: '/work/project', realpath: () => null, limits: { maxComparisons, maxResolutions: 1_000_000, maxChars: 8 * 1024 * 1024, maxNodes: 1_000_000 } });
  }

  it('1 MB of directory + file pairs: each file is joined with its own object\'s directory, not every directory in the message', () => {
    const count = 22_000;
    const args = { items: Array.from({ length: count }, (_, i) => ({ dir: `/srv/data/d${i}`, file: `f${i}.txt` })) };
    expect(JSON.stringify(args).length).toBeGreaterThan(1_000_000);
    // About three comparisons per object (its directory, its file under cwd and under its directory):
    // joining every pair would need count² ≈ 480 million.
    expect(matcher(5 * count).find(args)).toBeNull();
    const planted = { items: [...args.items, { dir: '~', file: '.ssh/id_rsa' }] };
    expect(matcher(5 * count).find(planted)).toMatchObject({ reason: 'protected_path', argumentPath: `args.items[${count}].file` });
  });

  it('1 MB of commands with cd, nested shells and substitutions: a bounded number of joins per word', () => {
    const units = 16_000;
    const command = Array.from({ length: units }, (_, i) => `cd src && bash -c 'cd ../lib && cat f${i}.txt' && cat $(echo docs)/r${i}.md; `).join('');
    expect(command.length).toBeGreaterThan(1_000_000);
    // Six distinct relative words per unit, each under cwd and a handful of cd targets.
    expect(matcher(40 * units).find({ command })).toBeNull();
    expect(matcher(40 * units).find({ command: `${command} cd ~ && cat .ssh/id_rsa` })).toMatchObject({ reason: 'protected_path', argumentPath: 'args.command' });
  });

  it('1 MB of variable assignments and references: a bounded number of joins per word', () => {
    const units = 30_000;
    const command = Array.from({ length: units }, (_, i) => `D${i % 100}=lib/m${i}; cat $D${i % 100}/f${i}.txt "\${D${i % 100}:-src}"/g.md; `).join('');
    expect(command.length).toBeGreaterThan(1_000_000);
    // Four distinct relative words per unit (the assignment, its value and two expanded paths), each under cwd.
    expect(matcher(10 * units).find({ command })).toBeNull();
    expect(matcher(10 * units).find({ command: `${command} H=~; cat $H/.ssh/id_rsa` })).toMatchObject({ reason: 'protected_path', argumentPath: 'args.command' });
  });

  it('expansion past a budget proportional to the text fails closed instead of growing', () => {
    // 100,000 references to a 1,000-character value would be 100 MB of words; doubling 60 times, 2^60.
    const repeated = `X=${'a'.repeat(1000)}; ${'echo $X/x; '.repeat(100_000)}`;
    expect(matcher(1_000_000).find({ command: repeated })).toMatchObject({ reason: 'too_large', argumentPath: 'args.command' });
    const doubling = `X=ab; ${'X=$X$X; '.repeat(60)}cat $X`;
    expect(matcher(1_000_000).find({ command: doubling })).toMatchObject({ reason: 'too_large', argumentPath: 'args.command' });
  });
});
