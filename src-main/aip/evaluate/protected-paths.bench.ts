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

  // Walk-around reading (issue 9 item 8): nested shells, substitutions and cd, directory + file
  // pairs, and shell variables, each at 10 KB, 100 KB and 1 MB, beside the floor of the same run:
  // a JSON parse + stringify of the same arguments. The joins are bounded per word, so the cost
  // per character should stay flat as the size grows.
  const wide = new ProtectedPathMatcher(entries, { homeDir: home, cwd: project, alwaysProtect, realpath: (p) => p, limits: { maxComparisons: 10_000_000, maxResolutions: 1_000_000, maxNodes: 1_000_000 } });
  const shapes: Record<string, (n: number) => unknown> = {
    shell: (n) => ({ command: Array.from({ length: n }, (_, i) => `cd src && bash -c 'cd ../lib && cat f${i}.txt' && cat $(echo docs)/r${i}.md; `).join('') }),
    pairs: (n) => ({ items: Array.from({ length: n }, (_, i) => ({ dir: `/srv/data/d${i}`, file: `f${i}.txt` })) }),
    // 100 names assigned and referenced (`$D`, `${D:-…}`).
    shell_variables: (n) => ({ command: Array.from({ length: n }, (_, i) => `D${i % 100}=lib/m${i}; cat $D${i % 100}/f${i}.txt "\${D${i % 100}:-src}"/g.md; `).join('') }),
  };
  for (const [name, make] of Object.entries(shapes)) {
    const unit = JSON.stringify(make(1)).length;
    for (const [label, bytes] of [['10kb', 10_000], ['100kb', 100_000], ['1mb', 1_000_000]] as const) {
      const args = make(Math.ceil(bytes / unit));
      if (wide.find(args) !== null) throw new Error(`benchmark case ${name}_${label} unexpectedly matched`);
      const text = JSON.stringify(args);
      const floor = opsPerSecond(() => JSON.stringify(JSON.parse(text)), 1000);
      const run = opsPerSecond(() => wide.find(args), 3000);
      const us = 1e6 / run.opsPerSec;
      const floorUs = 1e6 / floor.opsPerSec;
      report(`aip.protected_paths.${name}_${label}`, 'us/check', us, { chars: text.length, ns_per_char: (us * 1000) / text.length, floor_json_roundtrip_us: floorUs, ratio_to_floor: us / floorUs, realpath: false });
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
