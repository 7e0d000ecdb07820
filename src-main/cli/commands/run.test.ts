import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import { openHome } from '../../app/home.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { ApprovalEngine } from '../../approval/engine.js';
import type { PlanApprover } from '../../silas/executor/plan-approver.js';
import { planHash } from '../../silas/work/hashes.js';
import { parsePlan } from '../../silas/work/plan-parser.js';
import { runSilas } from '../../testing/cli.js';
import { createTestLedger } from '../../testing/ledger.js';
import { useTempDirs } from '../../testing/temp.js';
import { createRunCommand, type RunCommandDeps } from './run.js';
import { typedAtTerminal } from '../testing/typed-terminal.js';
import { commandOpener } from '../../app/cli-context.js';
import { workItemSubject } from '../../silas/work/plan-subjects.js';

const tempDir = useTempDirs('silas-run-cli-');

/** A plan shaped like spec §13.1: fix a bug in a local repository; only its tests decide. */
const PLAN = `---
id: task-fix-tz-bug
type: task
title: Fix timezone bug in shift scheduler
interaction_mode: act_and_report
budget: { max_tokens: 200000, max_cost_usd: 2.00, max_wall_time_seconds: 1800, max_attempts: 2 }
verify:
  - name: tests_pass
    run: "python3 -m unittest discover -s tests -t . 2>&1"
    expect: { contains: "OK" }
  - name: parses
    run: python3 -c "import ast; ast.parse(open('scheduler/slot_allocator.py').read())"
    expect: { exit_code: 0 }
on_stuck: consult_planner
---

# Context

Collision detection compares local times; it must compare UTC.

# What to do

Fix \`scheduler/slot_allocator.py\` so that the tests pass.
`;

const BUGGY = 'def overlaps(a_start_utc, a_end_utc, b_start_local, b_end_local, offset):\n    return a_start_utc < b_end_local and b_start_local < a_end_utc\n';
const FIXED = 'def overlaps(a_start_utc, a_end_utc, b_start_local, b_end_local, offset):\n    return a_start_utc < b_end_local - offset and b_start_local - offset < a_end_utc\n';
const TEST = `import unittest
from scheduler.slot_allocator import overlaps

class CrossTimezone(unittest.TestCase):
    def test_cross_timezone_collision(self):
        self.assertTrue(overlaps(10, 12, 13, 15, 2))
        self.assertFalse(overlaps(10, 12, 11, 13, -1))

if __name__ == "__main__":
    unittest.main()
`;

interface Setup {
  home: string;
  store: MemorySecretStore;
  repo: string;
  plan: string;
  calls: string;
}

async function setup(calls: unknown = [{ tool: 'python_exec', args: { code: `open("scheduler/slot_allocator.py", "w").write(${JSON.stringify(FIXED)})` } }]): Promise<Setup> {
  const dir = tempDir();
  const home = join(dir, 'home');
  const store = new MemorySecretStore();
  expect((await runSilas(['init', '--home', home], { secretStore: store })).code).toBe(0);
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'scheduler'), { recursive: true });
  mkdirSync(join(repo, 'tests'), { recursive: true });
  writeFileSync(join(repo, 'scheduler', '__init__.py'), '');
  writeFileSync(join(repo, 'scheduler', 'slot_allocator.py'), BUGGY);
  writeFileSync(join(repo, 'tests', '__init__.py'), '');
  writeFileSync(join(repo, 'tests', 'test_shifts.py'), TEST);
  const plan = join(dir, 'fix.md');
  writeFileSync(plan, PLAN);
  const callsFile = join(dir, 'calls.json');
  writeFileSync(callsFile, JSON.stringify(calls));
  return { home, store, repo, plan, calls: callsFile };
}

async function silasRun(s: Setup, flags: string[], stdin?: string, deps: RunCommandDeps = {}, stopSignal?: Promise<string>) {
  const out: string[] = [];
  const err: string[] = [];
  // What the person types at the terminal for --approve-here (approval-terminal.ts); stdin stays empty.
  const command = createRunCommand(stdin !== undefined && flags.includes('--approve-here') ? { terminal: typedAtTerminal(stdin), ...deps } : deps);
  const code = await command.run([s.plan, '--agent', `script:${s.calls}`, '--home', s.home, '--workdir', s.repo, ...flags], {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    env: {},
    secretStore: s.store,
    stdin: Readable.from([]),
    stopSignal,
  }, commandOpener({ secretStore: s.store }));
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function ledgerEvents(s: Setup): { id: string; event: string; data: Record<string, unknown> }[] {
  const db = new Database(join(s.home, 'silas.db'), { readonly: true });
  try {
    return (db.prepare('SELECT id, event, data FROM audit_entries ORDER BY idx').all() as { id: string; event: string; data: string }[]).map((r) => ({ ...r, data: JSON.parse(r.data) }));
  } finally {
    db.close();
  }
}

const hashOfPlan = () => planHash(parsePlan(PLAN));

describe('silas run', () => {
  it('--approve-here refuses a confirmation piped into standard input by a process with no terminal: nothing is signed, nothing runs', async () => {
    const s = await setup();
    const err: string[] = [];
    // The hash prefix the command printed, echoed back through a pipe.
    const code = await createRunCommand().run([s.plan, '--agent', `script:${s.calls}`, '--home', s.home, '--workdir', s.repo, '--approve-here'], {
      out: () => undefined,
      err: (t) => err.push(t),
      env: {},
      secretStore: s.store,
      stdin: Readable.from([`${hashOfPlan().slice(0, 8)}\n`]),
    }, commandOpener({ secretStore: s.store }));
    expect(code).toBe(1);
    expect(err.join('\n')).toContain('--approve-here needs a terminal; approve in the cockpit instead');
    const events = ledgerEvents(s);
    expect(events.filter((e) => e.event === 'silas.run.approval_declined')).toEqual([expect.objectContaining({ data: expect.objectContaining({ source: 'terminal', reason: expect.stringContaining('needs a terminal') }) })]);
    expect(events.some((e) => e.event === 'silas.approval.issued' || e.event === 'silas.run.approval_confirmed' || e.event.startsWith('silas.executor.'))).toBe(false);
    expect(readFileSync(join(s.repo, 'scheduler', 'slot_allocator.py'), 'utf8')).not.toBe(FIXED);
  });

  it('--approve-here: plan → signed approval → sandboxed execution → external verification → done', async () => {
    const s = await setup();
    const result = await silasRun(s, ['--approve-here', '--json'], `${hashOfPlan().slice(0, 8)}\n`);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.out);
    expect(Object.keys(output)).toEqual(['status', 'summary', 'verification_results', 'audit_ids']);
    expect(output).toMatchObject({ status: 'done', verification_results: [expect.objectContaining({ name: 'tests_pass', passed: true }), expect.objectContaining({ name: 'parses', passed: true })] });
    expect(readFileSync(join(s.repo, 'scheduler', 'slot_allocator.py'), 'utf8')).toBe(FIXED);
    // The card went to stderr so that stdout is exactly the JSON.
    expect(result.err).toContain(`Plan hash: ${hashOfPlan()}`);
    expect(result.err).toContain('To approve, confirm the first 8 characters of the plan hash');

    const events = ledgerEvents(s);
    const ours = events.filter((e) => output.audit_ids.includes(e.id)).map((e) => e.event);
    expect(output.audit_ids).toHaveLength(ours.length);
    for (const name of ['silas.run.approval_confirmed', 'silas.approval.issued', 'silas.approval.consumed', 'silas.approval.checked', 'silas.executor.tool_call', 'silas.executor.verification', 'silas.executor.finished']) {
      expect(ours).toContain(name);
    }
    expect(ours.indexOf('silas.approval.consumed')).toBeLessThan(ours.indexOf('silas.executor.tool_call'));
  });

  it('prints the plan, the outcome and the checks as text without --json', async () => {
    const s = await setup();
    const result = await silasRun(s, ['--approve-here'], `${hashOfPlan().slice(0, 8).toUpperCase()}\n`);
    expect(result.code).toBe(0);
    expect(result.out).toContain('Run task "Fix timezone bug in shift scheduler"');
    expect(result.out).toContain('Status: done');
    expect(result.out).toContain('  PASS  tests_pass:');
  });

  it('refuses a wrong confirmation code: exit 1, nothing runs, the refusal is audited', async () => {
    const s = await setup();
    const result = await silasRun(s, ['--approve-here', '--json'], 'deadbeef\n');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({ status: 'blocked', summary: expect.stringContaining('confirmation code does not match') });
    expect(readFileSync(join(s.repo, 'scheduler', 'slot_allocator.py'), 'utf8')).toBe(BUGGY);
    const events = ledgerEvents(s);
    expect(events.filter((e) => e.event === 'silas.run.approval_declined')).toEqual([expect.objectContaining({ data: expect.objectContaining({ source: 'terminal', plan_hash: hashOfPlan() }) })]);
    expect(events.some((e) => e.event === 'silas.approval.issued' || e.event.startsWith('silas.executor.'))).toBe(false);
    // End of input without an answer declines too.
    expect((await silasRun(s, ['--approve-here'], '')).code).toBe(1);
  });

  it('validates CALLS.json before asking for approval, naming the file, index and field', async () => {
    const s = await setup([{ tool: 'shell_exec', args: { command: ['true'] } }, { tool: 'shell_exec', args: { command: 'rm -rf /' } }]);
    const result = await silasRun(s, ['--approve-here'], `${hashOfPlan().slice(0, 8)}\n`);
    expect(result.code).toBe(1);
    expect(result.err).toContain(`${s.calls}: [1].args.command: expected an argument list`);
    expect(ledgerEvents(s).some((e) => e.event.startsWith('silas.approval.'))).toBe(false);
  });

  it('asks the cockpit without --approve-here, and runs only under the token it returns', async () => {
    const s = await setup();
    const asked: string[] = [];
    const cockpit = (sign: (item: WorkItem) => WorkItem): RunCommandDeps => ({
      planApprover: (home): PlanApprover => ({
        request: async (request) => {
          asked.push(request.planHash);
          // The control center signs with the same owner key, over its own connection to the ledger.
          const ledger = openHome(home, { create: false, keys: 'signer', secretStore: s.store });
          try {
            const engine = new ApprovalEngine({ db: ledger.db, audit: ledger.audit, signer: ledger.signer! });
            return { outcome: 'approve', token: engine.issueToken(workItemSubject(sign(request.item)), { verdict: 'approved' }) };
          } finally {
            ledger.close();
          }
        },
      }),
    });
    // A token signed for an edited plan is refused before anything runs.
    const edited = await silasRun(s, ['--json'], undefined, cockpit((item) => ({ ...item, body: `${item.body}\nAlso push to main.` })));
    expect(edited.code).toBe(1);
    expect(JSON.parse(edited.out).summary).toContain('E_APPROVAL_PLAN_HASH');
    expect(readFileSync(join(s.repo, 'scheduler', 'slot_allocator.py'), 'utf8')).toBe(BUGGY);

    const approved = await silasRun(s, ['--json'], undefined, cockpit((item) => item));
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.out).status).toBe('done');
    expect(asked).toEqual([hashOfPlan(), hashOfPlan()]);

    // The same plan again: done is final, so no one is even asked.
    const again = await silasRun(s, ['--json'], undefined, cockpit((item) => item));
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out)).toMatchObject({ status: 'blocked', summary: expect.stringContaining('already ran to done') });
    expect(asked).toHaveLength(2);
  });

  it('refuses a file_exists check outside the work directory, naming the field, before anyone is asked', async () => {
    const s = await setup();
    writeFileSync(s.plan, PLAN.replace('on_stuck: consult_planner', '  - name: escaped\n    run: "true"\n    expect: { file_exists: "/etc/passwd" }\non_stuck: consult_planner'));
    let asked = 0;
    const result = await silasRun(s, ['--json'], undefined, { planApprover: () => ({ request: async () => ((asked += 1), { outcome: 'deny', reason: 'unused' }) }) });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out).summary).toMatch(/verify\[2\]\.expect\.file_exists: "\/etc\/passwd" is outside the permitted directories/);
    expect(asked).toBe(0);
    expect(readFileSync(join(s.repo, 'scheduler', 'slot_allocator.py'), 'utf8')).toBe(BUGGY);
  });

  it('Ctrl-C during execution stops the run: the command is killed, the task fails with the reason, exit 1', async () => {
    // The command writes after 6 s: Ctrl-C comes well before that even on a loaded machine, and the
    // check below waits past it, so a command left running would be seen.
    const s = await setup([{ tool: 'shell_exec', args: { command: ['/bin/sh', '-c', 'sleep 6; echo changed > scheduler/slot_allocator.py'] } }]);
    const code = hashOfPlan().slice(0, 8);
    let pressCtrlC: (signal: string) => void = () => undefined;
    const stop = new Promise<string>((resolve) => (pressCtrlC = resolve));
    const running = silasRun(s, ['--approve-here', '--json'], `${code}\n`, {}, stop);
    await expect.poll(() => ledgerEvents(s).some((e) => e.event === 'silas.executor.tool_call'), { timeout: 10_000 }).toBe(true);
    const started = Date.now();
    pressCtrlC('SIGINT');
    const result = await running;
    expect(result.code).toBe(1);
    expect(result.err).toContain('SIGINT: stopping the run');
    expect(JSON.parse(result.out)).toMatchObject({ status: 'failed', summary: expect.stringContaining('interrupted by the person') });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 7_000 - Date.now())));
    expect(readFileSync(join(s.repo, 'scheduler', 'slot_allocator.py'), 'utf8')).toBe(BUGGY);
  });

  it('refuses a plan approved by a key an attacker inserted into owner_keys, before anyone is asked, and audits it', async () => {
    const s = await setup();
    // The attacker's own key and engine (its own throwaway ledger), and a fake control center that approves with them.
    const forger = createTestLedger(tempDir());
    const forgery = new ApprovalEngine({ db: forger.db, audit: forger.audit, signer: forger.signer });
    const victim = new Database(join(s.home, 'silas.db'));
    victim.prepare("INSERT INTO owner_keys VALUES (?, ?, 'silas', 'attacker', ?)").run(forger.signer.fingerprint, forger.signer.publicKey.toString('hex'), new Date().toISOString());
    victim.close();
    let asked = 0;
    const fakeControlCenter: RunCommandDeps = {
      planApprover: () => ({ request: async (request) => ((asked += 1), { outcome: 'approve', token: forgery.issueToken(workItemSubject(request.item), { verdict: 'approved' }) }) }),
    };
    const result = await silasRun(s, ['--json'], undefined, fakeControlCenter);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({ status: 'blocked', summary: expect.stringContaining(forger.signer.fingerprint) });
    expect(asked).toBe(0);
    expect(readFileSync(join(s.repo, 'scheduler', 'slot_allocator.py'), 'utf8')).toBe(BUGGY);
    const events = ledgerEvents(s);
    expect(events.filter((e) => e.event === 'audit.tamper_detected')).toEqual([expect.objectContaining({ data: expect.objectContaining({ table: 'owner_keys', foreign_fingerprints: [forger.signer.fingerprint] }) })]);
    expect(events.some((e) => e.event.startsWith('silas.approval.') || e.event.startsWith('silas.executor.'))).toBe(false);
    forger.db.close();
  });

  it('trusts only the keyring owner key: a token signed by any other key is refused and nothing runs', async () => {
    const s = await setup();
    const forger = createTestLedger(tempDir());
    const forgery = new ApprovalEngine({ db: forger.db, audit: forger.audit, signer: forger.signer });
    const result = await silasRun(s, ['--json'], undefined, { planApprover: () => ({ request: async (request) => ({ outcome: 'approve', token: forgery.issueToken(workItemSubject(request.item), { verdict: 'approved' }) }) }) });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({ status: 'blocked', summary: expect.stringContaining('the approval was refused') });
    expect(readFileSync(join(s.repo, 'scheduler', 'slot_allocator.py'), 'utf8')).toBe(BUGGY);
    expect(ledgerEvents(s).some((e) => e.event.startsWith('silas.executor.'))).toBe(false);
    forger.db.close();
  });

  it('reports a denial or an unreachable control center and runs nothing', async () => {
    const s = await setup();
    const denied = await silasRun(s, [], undefined, { planApprover: () => ({ request: async () => ({ outcome: 'deny', reason: 'looks risky' }) }) });
    expect(denied).toMatchObject({ code: 1, err: expect.stringContaining('not approved (deny): looks risky') });
    const unreachable = await silasRun(s, []);
    expect(unreachable).toMatchObject({ code: 1, err: expect.stringContaining('control center is not running') });
    expect(readFileSync(join(s.repo, 'scheduler', 'slot_allocator.py'), 'utf8')).toBe(BUGGY);
    expect(ledgerEvents(s).filter((e) => e.event === 'silas.run.approval_declined').map((e) => e.data.outcome)).toEqual(['deny', 'unreachable']);
  });

  it('exits 1 when verification fails, whatever the agent did', async () => {
    const s = await setup([{ tool: 'shell_exec', args: { command: ['sh', '-c', 'echo "# looks fixed" >> scheduler/slot_allocator.py'] } }]);
    const result = await silasRun(s, ['--approve-here', '--json'], `${hashOfPlan().slice(0, 8)}\n`);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({ status: 'stuck', verification_results: [expect.objectContaining({ name: 'tests_pass', passed: false }), expect.anything()] });
  });

  it('refuses bad usage and plans it cannot run', async () => {
    const s = await setup();
    expect(await runSilas(['run', s.plan, '--home', s.home], { secretStore: s.store })).toMatchObject({ code: 2, err: expect.stringContaining('--agent is required: llm (the executor model') });
    expect(await runSilas(['run', s.plan, '--agent', 'llm:gpt', '--home', s.home], { secretStore: s.store })).toMatchObject({ code: 2, err: expect.stringContaining('--agent: expected llm or script:CALLS.json, got "llm:gpt"') });
    expect(await runSilas(['run', s.plan, '--agent', `script:${s.calls}`, '--workdir', join(s.repo, 'missing'), '--home', s.home], { secretStore: s.store })).toMatchObject({ code: 2, err: expect.stringContaining('does not exist') });
    const project = join(s.repo, '..', 'project.md');
    writeFileSync(project, '---\nid: p\ntype: project\ntitle: P\ntasks: [a]\n---\nGo.\n');
    expect(await runSilas(['run', project, '--agent', `script:${s.calls}`, '--home', s.home], { secretStore: s.store })).toMatchObject({ code: 1, err: expect.stringContaining('silas run executes task plans') });
    writeFileSync(s.calls, '[{"tool": ');
    expect(await runSilas(['run', s.plan, '--agent', `script:${s.calls}`, '--home', s.home], { secretStore: s.store })).toMatchObject({ code: 1, err: expect.stringContaining('(document): not valid JSON') });
  });
});

