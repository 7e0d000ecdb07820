import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../../testing/temp.js';
import { homeWithProject } from './testing/home.js';
import { ProtectedPathMatcher } from './index.js';

// A long argument costs lookups in proportion to what it names (docs/protected-paths.md "Cost and
// file-system lookups"): filesystem lookups are cached within one decision, so their number follows
// the distinct directories an argument names, not its length; and what a listing taught the
// call never hides a symlink into a protected directory.

const temp = useTempDirs('silas-lookups-');

function world() {
  const { home, cwd } = homeWithProject(temp());
  // Enough names in the working directory for it to be listed once rather than asked name by name.
  for (let i = 0; i < 10; i += 1) writeFileSync(join(cwd, `n${i}.txt`), '');
  return { home, cwd };
}

const line = (i: number) => `export function f${i}(a: number): number { return a * ${i}; } // see ./docs/f${i}.md n${i % 10}.txt\n`;
const source = (lines: number) => Array.from({ length: lines }, (_, i) => line(i)).join('');

describe('ProtectedPathMatcher filesystem lookups', () => {
  it('cost the same for 10 lines and 2,000 lines naming files in the same directories', () => {
    const { home, cwd } = world();
    const matcher = new ProtectedPathMatcher(['~/.ssh', '.env'], { homeDir: home, cwd });
    expect(matcher.find({ path: 'src/a.ts', content: source(10) }, { tool: 'write_file' })).toBeNull();
    const few = matcher.lastLookups;
    expect(matcher.find({ path: 'src/a.ts', content: source(2000) }, { tool: 'write_file' })).toBeNull();
    expect(matcher.lastLookups).toBe(few);
    // The working directory listed once, resolved once, and the file written looked up: `docs`
    // missing from the listing settles every `docs/fN.md` and the multi-line value itself.
    expect(few).toBeLessThanOrEqual(4);
    expect(few).toBeGreaterThan(0);
  });

  it('are made again on the next call: a symlink created between two calls is seen', () => {
    const { home, cwd } = world();
    const matcher = new ProtectedPathMatcher(['~/.ssh'], { homeDir: home, cwd });
    expect(matcher.find({ path: 'src/a.ts', content: source(10) }, { tool: 'write_file' })).toBeNull();
    symlinkSync(join(home, '.ssh'), join(cwd, 'docs'));
    const found = matcher.find({ path: 'src/a.ts', content: `${source(10)}cat ./docs/id_rsa\n` }, { tool: 'write_file' });
    expect(found).toMatchObject({ reason: 'protected_path', protectedPath: '~/.ssh' });
  });

  it('a name the listing shows as a symlink is resolved, not settled as missing or plain', () => {
    const { home, cwd } = world();
    symlinkSync(join(home, '.ssh'), join(cwd, 'docs'));
    const matcher = new ProtectedPathMatcher(['~/.ssh'], { homeDir: home, cwd });
    for (const word of ['./docs/id_rsa', 'docs/f1.md', './docs/new/file']) {
      const found = matcher.find({ path: 'src/a.ts', content: `${source(10)}${word}\n${source(10)}` }, { tool: 'write_file' });
      expect({ word, found }).toMatchObject({ word, found: { reason: 'protected_path' } });
    }
    // A multi-line value is a path too, under a directory that is a symlink into ~/.ssh.
    const whole = matcher.find({ path: `docs/${source(3)}` }, { tool: 'write_file' });
    expect(whole).toMatchObject({ reason: 'protected_path' });
  });

  it('shell text that changes directory costs the same lookups at 10 and 500 units', () => {
    const { home, cwd } = world();
    const unit = (i: number) => `cd src && bash -c 'cd ../lib && cat f${i}.txt' && cat $(echo docs)/r${i}.md; `;
    const command = (n: number) => Array.from({ length: n }, (_, i) => unit(i)).join('');
    const matcher = new ProtectedPathMatcher(['~/.ssh', '.env'], { homeDir: home, cwd });
    expect(matcher.find({ command: command(10) }, { tool: 'run_command' })).toBeNull();
    const few = matcher.lastLookups;
    expect(matcher.find({ command: command(500) }, { tool: 'run_command' })).toBeNull();
    expect(matcher.lastLookups).toBe(few);
    // The working directory and its listing, `src`, `lib` under it and under its parent, the
    // names the naive split leaves absolute (`/r0.md`) until `/` is listed: the parent of the
    // working directory is not walked again from the root, and no scope directory is resolved twice.
    expect(few).toBeLessThanOrEqual(14);
    expect(matcher.find({ command: `${command(10)}cd ../.ssh && cat id_rsa` }, { tool: 'run_command' })).toMatchObject({ reason: 'protected_path' });
  });

  it('a working directory reached through a symlink gets no shortcut: `..` is its real parent', () => {
    const { home } = world();
    mkdirSync(join(home, 'real', 'proj'), { recursive: true });
    writeFileSync(join(home, 'real', 'x'), 'SECRET');
    symlinkSync(join(home, 'real'), join(home, 'alias'));
    const matcher = new ProtectedPathMatcher(['~/real/x'], { homeDir: home, cwd: join(home, 'alias', 'proj') });
    for (const command of ['cat ../x', 'cd .. && cat x', `cat ${join(home, 'alias', 'x')}`]) {
      expect({ command, found: matcher.find({ command }, { tool: 'run_command' }) }).toMatchObject({ command, found: { reason: 'protected_path' } });
    }
  });
});
