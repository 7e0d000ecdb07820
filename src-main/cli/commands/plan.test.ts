import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planHash } from '../../silas/work/hashes.js';
import { parsePlan } from '../../silas/work/plan-parser.js';
import { runSilas, runSilasChild, runSilasProcess } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';
import { describeExpectation, planApprovalCard, planRationale, planRisk } from '../../review/kinds/plan-card.js';
import { terminalSafe } from './plan.js';

const tempDir = useTempDirs('silas-plan-cli-');
const FIXTURES = join(import.meta.dirname, '../../silas/work/fixtures');
const fixture = (name: string) => join(FIXTURES, name);
const parsed = (name: string) => parsePlan(readFileSync(fixture(name), 'utf8'));

const silas = (argv: string[]) => runSilasChild(argv);

function write(name: string, text: string | Buffer): string {
  const file = join(tempDir(), name);
  writeFileSync(file, text);
  return file;
}

describe('silas plan check (real process)', () => {
  it('prints the plan hash and the approval card of the §13.1 plan', () => {
    const file = fixture('spec-13-1-fix-bug.md');
    const result = runSilasProcess(['plan', 'check', file]);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const hash = '64edcf6f34b8be98cb612441bf1a20b27de5b18befb50b433df77394b87cb68a';
    expect(result.out.split('\n')).toEqual([
      `Plan: ${file} (task-fix-tz-bug, task)`,
      `Plan hash: ${hash}`,
      '',
      'Run task "Fix timezone bug in shift scheduler"',
      'Risk: medium (an agent runs commands in a sandbox with the network denied)',
      'Why: The shift roster generator produces overlapping shifts when employees span multiple timezones. Root cause is likely in `scheduler/slot_allocator.py` — collision detection uses local time instead of UTC.',
      'Approving: Signs a single-use approval bound to plan 64edcf6f: an agent works through the briefing in a sandbox with the network denied, within the budget; only the 2 verify checks below can mark it done.',
      '',
      "Verify (2 checks, run outside the agent's sandbox):",
      '  1. tests_pass: pytest tests/test_shifts.py -v -> exit code 0 (timeout 60s, no network)',
      '  2. lint_clean: ruff check . -> exit code 0 (timeout 60s, no network)',
      'Budget: 200,000 tokens · $2.00 · 1800s wall time · 5 attempts · 3 planner calls',
      'Gates: none',
      'Skills: none',
      '',
      'Actions: [Approve + execute]  [Request edits]  [Decline]',
      'To approve, confirm the first 8 characters of the plan hash: 64edcf6f',
      '',
    ]);
  });

  it('--json gives plan_hash, the parsed work item and the card for every example plan', async () => {
    const names = readdirSync(FIXTURES).filter((name) => name.endsWith('.md'));
    expect(names.length).toBeGreaterThanOrEqual(6);
    const results = await Promise.all(names.map((name) => silas(['plan', 'check', fixture(name), '--json'])));
    for (const [i, name] of names.entries()) {
      const result = results[i]!;
      expect(result.code, `${name}: ${result.err}`).toBe(0);
      const json = JSON.parse(result.out);
      expect(Object.keys(json)).toEqual(['plan_hash', 'work_item', 'card']);
      const item = parsed(name);
      expect(json.plan_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(json.plan_hash).toBe(planHash(item));
      expect({ ...json.work_item, created_at: item.created_at }).toEqual(item);
      expect(json.card).toEqual(planApprovalCard(item));
      expect(json.card.confirm_code).toBe(json.plan_hash.slice(0, 8));
    }
  });

  it('refuses a bad plan with every problem as file:line: field: message, exit 1', () => {
    const file = write(
      'bad.md',
      ['---', 'id: task-bad', 'type: task', 'title: Bad', 'budget: { max_tokens: 0 }', 'verfy: []', 'verify:', '  - name: two', '    run: "true"', '    expect: { exit_code: 0, contains: "x" }', '---', 'body', ''].join('\n'),
    );
    const result = runSilasProcess(['plan', 'check', file]);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err.trimEnd().split('\n')).toEqual([
      `${file}:5: budget.max_tokens: expected a positive integer`,
      expect.stringMatching(new RegExp(`^${file}:6: verfy: unknown field; check the spelling`)),
      `${file}:10: verify[0].expect: exactly one predicate is allowed, 2 given (exit_code, contains); split them into separate checks`,
    ]);
  });

  it('refuses a missing file, a directory, an oversized and a non-UTF-8 file clearly, exit 1', async () => {
    const dir = tempDir();
    const big = write('big.md', `---\nid: t\ntype: task\ntitle: t\n---\n${'x'.repeat(300 * 1024)}`);
    const latin1 = write('latin1.md', Buffer.from('---\nid: t\ntype: task\ntitle: caf\xe9\n---\n', 'latin1'));
    const [missing, directory, oversized, notUtf8] = await Promise.all([
      silas(['plan', 'check', join(dir, 'nope.md')]),
      silas(['plan', 'check', dir]),
      silas(['plan', 'check', big]),
      silas(['plan', 'check', latin1]),
    ]);
    expect(missing).toEqual({ code: 1, out: '', err: `silas plan check: cannot read plan ${join(dir, 'nope.md')}: no such file\n` });
    expect(directory.err).toBe(`silas plan check: ${dir} is a directory; name a plan file (.md)\n`);
    expect(oversized.err).toMatch(/big\.md is \d+ bytes; a plan is at most 262144 bytes \(256 KiB\)/);
    expect(notUtf8.err).toMatch(/latin1\.md is not UTF-8 text/);
    for (const result of [directory, oversized, notUtf8]) expect(result.code).toBe(1);
  });

  it('exits 2 on usage errors (in process: same code path, no process start per case)', async () => {
    const file = fixture('spec-13-1-fix-bug.md');
    const results = await Promise.all([runSilas(['plan', 'check']), runSilas(['plan', 'check', file, file]), runSilas(['plan', 'check', file, '--jsn']), runSilas(['plan', 'lint', file])]);
    expect(results.map((r) => r.code)).toEqual([2, 2, 2, 2]);
    expect(results[0]!.err).toMatch(/name the plan file/);
    expect(results[1]!.err).toMatch(/expected one plan file, got 2/);
    expect(results[2]!.err).toMatch(/--jsn/);
    expect(results[3]!.err).toMatch(/unknown plan command "lint"; known: check/);
  });

  it('shows escape sequences and bidi overrides from a plan as visible escapes, never raw', () => {
    const file = write(
      'sneaky.md',
      ['---', 'id: task-sneaky', 'type: task', 'title: "Tidy\\e[2K\\rApproved by admin \\u202Eevil"', 'verify:', '  - name: "ok\\e]0;pwned\\a"', '    run: "true"', '    expect: { exit_code: 0 }', '---', 'x', ''].join('\n'),
    );
    const result = runSilasProcess(['plan', 'check', file]);
    expect(result.code).toBe(0);
    for (const raw of ['\u001b', '\u0007', '\r', '\u202e']) expect(result.out).not.toContain(raw);
    expect(result.out).toContain('Run task "Tidy\\u{001b}[2K\\u{000d}Approved by admin \\u{202e}evil"');
    expect(result.out).toContain('1. ok\\u{001b}]0;pwned\\u{0007}: true -> exit code 0');
  });
});

describe('the approval card', () => {
  it('assigns risk from structure: sandboxed runs are medium, the live Stream and recurring goals high', () => {
    expect(planRisk(parsed('spec-13-1-fix-bug.md')).level).toBe('medium');
    expect(planRisk(parsed('spec-13-3-trading-bot.md')).level).toBe('medium');
    expect(planRisk(parsed('spec-13-5-deploy-project.md'))).toEqual({
      level: 'medium',
      reasons: ['an agent runs commands in a sandbox with the network denied, task by task', '1 verify check uses the network'],
    });
    expect(planRisk(parsed('spec-13-2-support-chatbot.md')).level).toBe('high');
    expect(planRisk(parsed('spec-13-4-health-monitor.md')).level).toBe('high');
    const chatbot = planApprovalCard(parsed('spec-13-2-support-chatbot.md'));
    expect(chatbot).toMatchObject({ details_expanded: true, intent: 'Put goal "Insurance customer support chatbot" live on the Stream' });
    // High risk: the same CTA rule as the cockpit's Review — declining is recommended and first.
    expect(chatbot.actions.map((a) => [a.verdict, a.emphasis])).toEqual([
      ['declined', 'recommended'],
      ['edit_requested', 'alternative'],
      ['approved', 'alternative'],
    ]);
    // Medium risk: approving is recommended, the decline comes last.
    expect(planApprovalCard(parsed('spec-13-5-deploy-project.md')).actions.map((a) => [a.verdict, a.emphasis])).toEqual([
      ['approved', 'recommended'],
      ['edit_requested', 'alternative'],
      ['declined', 'decline'],
    ]);
    expect(planApprovalCard(parsed('spec-13-5-deploy-project.md')).affected_items).toEqual({
      count: 5,
      summary: 'task-run-tests, task-build-image, task-deploy-staging, task-smoke-test, task-deploy-prod',
    });
  });

  it('takes the rationale from the first paragraph of prose, skipping headings', () => {
    expect(planRationale('# Context\n\nFirst sentence. Second one! Third?\n\n# More')).toBe('First sentence. Second one!');
    expect(planRationale('')).toBe('The plan gives no briefing; read it before approving.');
    expect(planRationale(`${'word '.repeat(100)}.`)).toHaveLength(280);
  });

  it('describes every expectation type', () => {
    const none = { exit_code: null, equals: null, contains: null, regex: null, output_lt: null, output_gt: null, file_exists: null, not_empty: null };
    expect(
      [
        { exit_code: 0 },
        { equals: 'ok' },
        { contains: 'passed' },
        { regex: '^\\d+$' },
        { output_lt: 3600 },
        { output_gt: 1 },
        { file_exists: 'dist/app.js' },
        { not_empty: true },
      ].map((e) => describeExpectation({ ...none, ...e })),
    ).toEqual(['exit code 0', 'output equals "ok"', 'output contains "passed"', 'output matches /^\\d+$/', 'output < 3600', 'output > 1', 'file exists: dist/app.js', 'output not empty']);
  });

  it('terminalSafe keeps newlines and tabs only in multi-line text', () => {
    expect(terminalSafe('a\nb\tc\u0000\u009b\u200f')).toBe('a\\u{000a}b\\u{0009}c\\u{0000}\\u{009b}\\u{200f}');
    expect(terminalSafe('a\nb\tc\u001b', true)).toBe('a\nb\tc\\u{001b}');
    expect(terminalSafe('plain café ✓')).toBe('plain café ✓');
  });
});
