import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../../testing/temp.js';
import { homeWithProject } from './testing/home.js';
import { ProtectedPathMatcher } from './index.js';

// A directory the matcher lists to answer many names at once may be no directory at all: a
// name too long for the kernel, a file, a path through a file. The listing then gives way to
// per-name lookups; the call is answered, never thrown out of (a throw would drop the message).

const temp = useTempDirs('silas-listing-');

function world() {
  const { home, cwd } = homeWithProject(temp());
  writeFileSync(join(cwd, 'notes.txt'), 'x');
  return { home, cwd };
}

const names = (dir: string) => Array.from({ length: 12 }, (_, i) => `${dir}/n${i}.md`).join('\n');

describe('ProtectedPathMatcher listings that cannot be read', () => {
  for (const [what, dir] of [
    ['a name longer than the kernel allows', 'x'.repeat(300)],
    ['a file', 'notes.txt'],
    ['a path through a file', 'notes.txt/sub'],
  ] as const) {
    it(`answers when the directory is ${what}`, () => {
      const { home, cwd } = world();
      const matcher = new ProtectedPathMatcher(['~/.ssh'], { homeDir: home, cwd });
      expect(matcher.find({ content: names(dir) }, { tool: 'write_file' })).toBeNull();
      expect(matcher.find({ content: `${names(dir)}\n../.ssh/id_rsa` }, { tool: 'write_file' })).toMatchObject({ reason: 'protected_path' });
      expect(matcher.find({ command: `cd ${dir} && cat ${names(dir).replaceAll('\n', ' ')}` }, { tool: 'run_command' })).toBeNull();
    });
  }
});
