import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { medianUs, opsPerSecond, report } from '../../../testing/bench.js';
import { benchProject, shellCommandArgs, SOURCE_LINES, sourceFileArgs } from './testing/bench.js';
import { collidingWords, ordinaryWords } from '../paths/testing/word-set.js';
import { ProtectedPathMatcher } from './index.js';

// One protected-path check per tools/call (spec 001 §4.3 step 2): 5 policy entries plus the two
// automatic ones, against a real home directory so realpath syscalls are real.
const { dir, home, project } = benchProject('silas-bench-');
try {
  writeFileSync(join(project, 'src', 'index.ts'), 'export {};\n');
  const entries = ['~/.ssh', '~/.aws/credentials', '.env', '~/.gnupg', '~/.config/gh/hosts.yml'];
  const alwaysProtect = [join(home, '.config', 'silas', 'policy.yaml'), join(home, '.local', 'share', 'silas')];
  const matcher = new ProtectedPathMatcher(entries, { homeDir: home, cwd: project, alwaysProtect });
  // Every path exists and none is a symlink: the same work without filesystem syscalls.
  const noSyscalls = new ProtectedPathMatcher(entries, { homeDir: home, cwd: project, alwaysProtect, realpath: (p) => p });

  const source = SOURCE_LINES.join('\n');
  const cases: Record<string, unknown> = {
    read_file: { path: join(project, 'src', 'index.ts') },
    run_command: { command: 'git status --short && npm test -- --reporter=dot 2>&1 | tail -n 20', cwd: project },
    write_file: { path: 'src/new.ts', content: source },
    search: { query: 'where do we configure the database connection?', paths: ['src', 'docs', 'README.md', './scripts', '../shared'], max_results: 20 },
  };

  // Each case as the proxy checks it: with its tool name (the "is it run as a command" rule applies).
  for (const [name, args] of Object.entries(cases)) {
    const context = { tool: name };
    if (matcher.find(args, context) !== null) throw new Error(`benchmark case ${name} unexpectedly matched`);
    const text = JSON.stringify(args);
    const floorUs = 1e6 / opsPerSecond(() => JSON.stringify(JSON.parse(text))).opsPerSec;
    const real = 1e6 / opsPerSecond(() => matcher.find(args, context)).opsPerSec;
    report(`aip.protected_paths.${name}`, 'us/check', real, { entries: entries.length + alwaysProtect.length, chars: text.length, floor_json_roundtrip_us: floorUs, ratio_to_floor: real / floorUs, realpath: true });
    const pure = 1e6 / opsPerSecond(() => noSyscalls.find(args, context)).opsPerSec;
    report(`aip.protected_paths.${name}.no_syscalls`, 'us/check', pure, { chars: text.length, floor_json_roundtrip_us: floorUs, ratio_to_floor: pure / floorUs, realpath: false });
  }

  // Baseline: the reference implementation's plain substring test (unsafe; for the ratio only).
  const expanded = entries.map((e) => e.replace(/^~/, home));
  const substring = (args: unknown): boolean => {
    const text = JSON.stringify(args);
    return expanded.some((e) => text.includes(e));
  };
  const baseline = opsPerSecond(() => substring(cases.run_command));
  report('aip.protected_paths.run_command.substring_baseline', 'us/check', 1e6 / baseline.opsPerSec, { role: 'floor' });

  // The ways around a literal path (docs/protected-paths.md "Shell commands", "Directory +
  // file-name pairs"): nested shells, substitutions and cd, directory + file pairs, and shell
  // variables, and a write_file of source code, from 1 KB to 4 MB, beside the floor of the same
  // run: a JSON parse + stringify of the same arguments. Each shape is checked as the proxy checks
  // it, with the tool that would carry it. Read the growth off ns_per_char from 100 KB to 4 MB: the
  // cost should grow with the arguments' length, not faster ("Cost and file-system lookups").
  const wide = new ProtectedPathMatcher(entries, { homeDir: home, cwd: project, alwaysProtect, realpath: (p) => p, limits: { maxComparisons: 40_000_000, maxResolutions: 4_000_000, maxNodes: 4_000_000, maxChars: 8 * 1024 * 1024 } });
  // The same shapes on the real filesystem with the default lookup budget (maxResolutions
  // 10,000): from 1 MB, whether the call is still inspected rather than refused.
  const realFs = new ProtectedPathMatcher(entries, { homeDir: home, cwd: project, alwaysProtect, limits: { maxNodes: 4_000_000, maxChars: 8 * 1024 * 1024 } });
  const toolOf: Record<string, string> = { write_file_source: 'write_file', shell: 'run_command', pairs: 'copy', shell_variables: 'run_command' };
  const shapes: Record<string, (n: number) => unknown> = {
    // One line of `source` per unit, so the smallest sizes are not one whole file.
    write_file_source: sourceFileArgs,
    shell: shellCommandArgs,
    pairs: (n) => ({ items: Array.from({ length: n }, (_, i) => ({ dir: `/srv/data/d${i}`, file: `f${i}.txt` })) }),
    // 100 names assigned and referenced (`$D`, `${D:-…}`).
    shell_variables: (n) => ({ command: Array.from({ length: n }, (_, i) => `D${i % 100}=lib/m${i}; cat $D${i % 100}/f${i}.txt "\${D${i % 100}:-src}"/g.md; `).join('') }),
  };
  for (const [name, make] of Object.entries(shapes)) {
    const unit = JSON.stringify(make(1)).length;
    for (const [label, bytes] of [['1kb', 1_000], ['10kb', 10_000], ['100kb', 100_000], ['1mb', 1_000_000], ['4mb', 4_000_000]] as const) {
      const args = make(Math.max(1, Math.round(bytes / unit)));
      const context = { tool: toolOf[name]! };
      if (wide.find(args, context) !== null) throw new Error(`benchmark case ${name}_${label} unexpectedly matched`);
      const text = JSON.stringify(args);
      // From 1 MB a check takes long enough to time a few single runs (opsPerSecond runs 16 at a time).
      const big = bytes >= 1_000_000;
      const floorUs = big ? medianUs(() => JSON.stringify(JSON.parse(text)), 9) : 1e6 / opsPerSecond(() => JSON.stringify(JSON.parse(text)), 1000).opsPerSec;
      const us = big ? medianUs(() => wide.find(args, context), 5) : 1e6 / opsPerSecond(() => wide.find(args, context), 2000).opsPerSec;
      report(`aip.protected_paths.${name}_${label}`, 'us/check', us, { chars: text.length, ns_per_char: (us * 1000) / text.length, floor_json_roundtrip_us: floorUs, ratio_to_floor: us / floorUs, realpath: false });
      if (big) {
        const found = realFs.find(args, context);
        const realUs = medianUs(() => realFs.find(args, context), 3);
        report(`aip.protected_paths.${name}_${label}.real_fs`, 'us/check', realUs, { chars: text.length, ns_per_char: (realUs * 1000) / text.length, floor_json_roundtrip_us: floorUs, ratio_to_floor: realUs / floorUs, realpath: true, refused: found === null ? null : found.reason });
      }
    }
  }

  // Words an agent makes to collide in a hash table (paths/word-set.ts), beside as many ordinary
  // distinct words of the same length (the floor): the check must cost the same for both, at
  // every size.
  for (const bits of [12, 14, 16]) {
    const colliding = { command: `echo ${collidingWords(bits).join(' ')}` };
    const ordinary = { command: `echo ${ordinaryWords(bits).join(' ')}` };
    const context = { tool: 'run_command' };
    const floorUs = medianUs(() => wide.find(ordinary, context), 5);
    const us = medianUs(() => wide.find(colliding, context), 5);
    report(`aip.protected_paths.colliding_words_${2 ** bits}`, 'us/check', us, { words: 2 ** bits, chars: colliding.command.length, floor_ordinary_words_us: floorUs, ratio_to_floor: us / floorUs });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
