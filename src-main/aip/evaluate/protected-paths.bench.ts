import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opsPerSecond, report } from '../../testing/bench.js';
import { ProtectedPathMatcher } from './protected-paths.js';

// One protected-path check per tools/call (spec 001 §4.3 step 2): 5 policy entries plus the two
// automatic ones, against a real home directory so realpath syscalls are real.
const dir = mkdtempSync(join(tmpdir(), 'silas-bench-'));
try {
  const home = join(dir, 'home');
  const project = join(home, 'project');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, 'src', 'index.ts'), 'export {};\n');
  const entries = ['~/.ssh', '~/.aws/credentials', '.env', '~/.gnupg', '~/.config/gh/hosts.yml'];
  const alwaysProtect = [join(home, '.config', 'silas', 'policy.yaml'), join(home, '.local', 'share', 'silas')];
  const matcher = new ProtectedPathMatcher(entries, { homeDir: home, cwd: project, alwaysProtect });
  // Every path exists and none is a symlink: the same work without filesystem syscalls.
  const noSyscalls = new ProtectedPathMatcher(entries, { homeDir: home, cwd: project, alwaysProtect, realpath: (p) => p });

  const source = Array.from({ length: 60 }, (_, i) => `export function f${i}(a: number): number { return a * ${i}; } // see ./docs/f${i}.md`).join('\n');
  const cases: Record<string, unknown> = {
    read_file: { path: join(project, 'src', 'index.ts') },
    run_command: { command: 'git status --short && npm test -- --reporter=dot 2>&1 | tail -n 20', cwd: project },
    write_file: { path: 'src/new.ts', content: source },
    search: { query: 'where do we configure the database connection?', paths: ['src', 'docs', 'README.md', './scripts', '../shared'], max_results: 20 },
  };

  for (const [name, args] of Object.entries(cases)) {
    if (matcher.find(args) !== null) throw new Error(`benchmark case ${name} unexpectedly matched`);
    const chars = JSON.stringify(args).length;
    const real = opsPerSecond(() => matcher.find(args));
    report(`aip.protected_paths.${name}`, 'us/check', 1e6 / real.opsPerSec, { entries: entries.length + alwaysProtect.length, chars, realpath: true });
    const pure = opsPerSecond(() => noSyscalls.find(args));
    report(`aip.protected_paths.${name}.no_syscalls`, 'us/check', 1e6 / pure.opsPerSec, { chars, realpath: false });
  }

  // Baseline: the reference implementation's plain substring test (unsafe; for the ratio only).
  const expanded = entries.map((e) => e.replace(/^~/, home));
  const substring = (args: unknown): boolean => {
    const text = JSON.stringify(args);
    return expanded.some((e) => text.includes(e));
  };
  const baseline = opsPerSecond(() => substring(cases.run_command));
  report('aip.protected_paths.run_command.substring_baseline', 'us/check', 1e6 / baseline.opsPerSec);

  // A large write: 100 KB of source code in one argument.
  const big = { path: 'src/big.ts', content: source.repeat(Math.ceil(100_000 / source.length)) };
  const bigRun = opsPerSecond(() => matcher.find(big), 2000);
  report('aip.protected_paths.write_file_100kb', 'us/check', 1e6 / bigRun.opsPerSec, { chars: big.content.length });

  // Walk-around reading (issue 9 item 8): nested shells, substitutions and cd in 1 MB of commands,
  // and 1 MB of directory + file pairs. Compare per-character cost with write_file_100kb: the
  // joins are bounded per word, so it should stay within a small factor.
  const units = Array.from({ length: 16_000 }, (_, i) => `cd src && bash -c 'cd ../lib && cat f${i}.txt' && cat $(echo docs)/r${i}.md; `);
  const script = { command: units.join('') };
  const pairs = { items: Array.from({ length: 22_000 }, (_, i) => ({ dir: `/srv/data/d${i}`, file: `f${i}.txt` })) };
  const wide = new ProtectedPathMatcher(entries, { homeDir: home, cwd: project, alwaysProtect, realpath: (p) => p, limits: { maxComparisons: 10_000_000, maxResolutions: 1_000_000, maxNodes: 1_000_000 } });
  // Shell variables: 1 MB of assignments and references (`$D`, `${D:-…}`) of 100 names.
  const variables = { command: Array.from({ length: 30_000 }, (_, i) => `D${i % 100}=lib/m${i}; cat $D${i % 100}/f${i}.txt "\${D${i % 100}:-src}"/g.md; `).join('') };
  for (const [name, args] of Object.entries({ shell_1mb: script, pairs_1mb: pairs, shell_variables_1mb: variables })) {
    if (wide.find(args) !== null) throw new Error(`benchmark case ${name} unexpectedly matched`);
    const run = opsPerSecond(() => wide.find(args), 3000);
    report(`aip.protected_paths.${name}`, 'us/check', 1e6 / run.opsPerSec, { chars: JSON.stringify(args).length, realpath: false });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
