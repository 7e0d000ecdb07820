import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { canonicalRoots, fileExistsOutside, lookupConfined } from './file-confinement.js';

const tempDir = useTempDirs('silas-confine-');

function setup() {
  const [work] = canonicalRoots([tempDir()]);
  const [project] = canonicalRoots([tempDir()]);
  const [outside] = canonicalRoots([tempDir()]);
  mkdirSync(join(work!, 'dist'));
  writeFileSync(join(work!, 'dist', 'app.js'), 'built');
  writeFileSync(join(project!, 'README.md'), 'project');
  writeFileSync(join(outside!, 'secret'), 'secret');
  const roots = [work!, project!];
  return { work: work!, project: project!, outside: outside!, lookup: (path: string) => lookupConfined(path, work!, roots) };
}

describe('lookupConfined', () => {
  it('finds files by relative path in the work dir and by absolute path in a project dir', () => {
    const { project, lookup } = setup();
    expect(lookup('dist/app.js')).toMatchObject({ ok: true, exists: true });
    expect(lookup('./dist/app.js')).toMatchObject({ ok: true, exists: true });
    expect(lookup('dist/missing.js')).toMatchObject({ ok: true, exists: false });
    expect(lookup('dist/app.js/child')).toMatchObject({ ok: true, exists: false });
    expect(lookup(join(project, 'README.md'))).toMatchObject({ ok: true, exists: true });
  });

  it('refuses "..", absolute paths outside the roots and NUL bytes', () => {
    const { outside, lookup } = setup();
    expect(lookup('../secret')).toMatchObject({ ok: false, reason: expect.stringContaining('".."') });
    expect(lookup('dist/../../x')).toMatchObject({ ok: false });
    expect(lookup('/etc/shadow')).toEqual({ ok: false, reason: 'Path "/etc/shadow" is outside the permitted directories' });
    expect(lookup(join(outside, 'secret'))).toMatchObject({ ok: false });
    expect(lookup('a\0b')).toMatchObject({ ok: false });
  });

  it('follows a symlink that stays inside the roots', () => {
    const { work, project, lookup } = setup();
    symlinkSync(join(work, 'dist'), join(work, 'latest'));
    symlinkSync(join(project, 'README.md'), join(work, 'readme-link'));
    symlinkSync('dist/app.js', join(work, 'relative-link'));
    expect(lookup('latest/app.js')).toMatchObject({ ok: true, exists: true });
    expect(lookup('readme-link')).toMatchObject({ ok: true, exists: true });
    expect(lookup('relative-link')).toMatchObject({ ok: true, exists: true });
  });

  it('refuses a symlink leading outside with the same reason whether or not the target exists (no oracle)', () => {
    const { work, outside, lookup } = setup();
    symlinkSync(join(outside, 'secret'), join(work, 'to-existing'));
    symlinkSync(join(outside, 'no-such-file'), join(work, 'to-missing'));
    symlinkSync(outside, join(work, 'to-dir'));
    const existing = lookup('to-existing');
    const missing = lookup('to-missing');
    expect(existing.ok).toBe(false);
    expect(missing.ok).toBe(false);
    expect(existing).toEqual({ ok: false, reason: 'Path "to-existing" leads through a symlink outside the permitted directories' });
    expect(lookup('to-dir/secret')).toMatchObject({ ok: false });
    expect(lookup('to-dir/absent')).toMatchObject({ ok: false });
  });

  it('refuses link targets with ".." and symlink loops; a dangling link inside is "not found"', () => {
    const { work, lookup } = setup();
    symlinkSync('../escape', join(work, 'dotdot'));
    symlinkSync(join(work, 'loop-b'), join(work, 'loop-a'));
    symlinkSync(join(work, 'loop-a'), join(work, 'loop-b'));
    symlinkSync(join(work, 'nothing-here'), join(work, 'dangling'));
    expect(lookup('dotdot')).toMatchObject({ ok: false, reason: expect.stringContaining('target contains ".."') });
    expect(lookup('loop-a')).toMatchObject({ ok: false, reason: expect.stringContaining('too many levels') });
    expect(lookup('dangling')).toMatchObject({ ok: true, exists: false });
  });

  it('drops roots that do not exist', () => {
    const dir = tempDir();
    expect(canonicalRoots([join(dir, 'missing'), dir])).toHaveLength(1);
  });
});

describe('fileExistsOutside (before anything runs)', () => {
  const check = (file_exists: string | null) => ({ expect: { file_exists } });

  it('accepts relative paths and absolute paths inside the work directory, and checks without file_exists', () => {
    const work = tempDir();
    expect(fileExistsOutside([check(null), check('out/report.txt'), check(join(work, 'a.txt')), check('~/x')], work, [work])).toBeNull();
  });

  it('names the first check whose path is outside, or climbs out with ..', () => {
    const work = tempDir();
    expect(fileExistsOutside([check('ok.txt'), check('/etc/passwd')], work, [work])).toEqual({ field: 'verify[1].expect.file_exists', reason: expect.stringContaining('outside the permitted directories') });
    expect(fileExistsOutside([check('a/../../b')], work, [work])).toMatchObject({ field: 'verify[0].expect.file_exists', reason: expect.stringContaining('..') });
    expect(fileExistsOutside([check(`${work}-sibling/x`)], work, [work])).toMatchObject({ field: 'verify[0].expect.file_exists' });
  });
});
