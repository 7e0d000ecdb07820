import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { ScriptedExecutorAgent } from './scripted-agent.js';
import { GREETING_CHECK, executorFixture, py, sh, taskPlan } from './testing/executor.js';
import type { ExecutorAgent, ToolCallOutcome } from './types.js';

const tempDir = useTempDirs('silas-executor-');

describe('WorkItemExecutor: a task from plan to verified result', () => {
  it('runs plan → signed approval → sandboxed tool calls → external verification → done, all audited', async () => {
    const f = executorFixture(tempDir());
    const outcomes: ToolCallOutcome[] = [];
    const scripted = new ScriptedExecutorAgent([sh('printf hello > hello.txt'), py('open("count.txt", "w").write(str(6 * 7))')], { summary: 'greeting written', nextSteps: ['review'] });
    f.agent = { run: (context) => scripted.run({ ...context, callTool: async (call) => { const outcome = await context.callTool(call); outcomes.push(outcome); return outcome; } }) };
    const item = f.approve(taskPlan('task-hello', GREETING_CHECK));

    const result = await f.executor.execute(item);

    expect(result).toMatchObject({ work_item_id: 'task-hello', status: 'done', last_error: null, next_steps: ['review'] });
    expect(result.summary).toBe('Done after 1 attempt(s): 1/1 verify check(s) passed. Agent reported: greeting written');
    expect(result.verification_results).toEqual([{ name: 'greeting', passed: true, reason: expect.any(String), output: 'hello', exit_code: 0 }]);
    expect(result.budget_used).toMatchObject({ attempts: 1, executor_runs: 2 });
    expect(readFileSync(join(f.workDir, 'count.txt'), 'utf8')).toBe('42');
    // The agent sees the model-facing channels only, never the sandbox metadata (§3.7).
    expect(outcomes.map((o) => Object.keys(o).sort())).toEqual([
      ['content', 'error', 'return_value', 'status'],
      ['content', 'error', 'return_value', 'status'],
    ]);
    expect(f.store.get('task-hello')).toMatchObject({ status: 'done', attempts: 1, approval_token: { token_id: item.approval_token!.token_id } });
    expect(f.store.getResult('task-hello')).toMatchObject({ status: 'done' });

    const trail = f.eventNames('silas.').filter((e) => !e.startsWith('silas.work_item.saved'));
    const at = (name: string) => trail.indexOf(name);
    expect(at('silas.approval.issued')).toBeLessThan(at('silas.approval.consumed'));
    expect(at('silas.approval.consumed')).toBeLessThan(at('silas.approval.checked'));
    expect(at('silas.approval.checked')).toBeLessThan(at('silas.executor.started'));
    expect(at('silas.executor.tool_call')).toBeLessThan(at('silas.executor.tool_result'));
    expect(at('silas.executor.tool_result')).toBeLessThan(at('silas.executor.verification'));
    expect(at('silas.executor.verification')).toBeLessThan(at('silas.executor.finished'));
    expect(f.events('silas.executor.tool_call')).toEqual([
      expect.objectContaining({ work_item_id: 'task-hello', attempt: 1, call_index: 1, tool: 'shell_exec', args: { command: ['sh', '-c', 'printf hello > hello.txt'] } }),
      expect.objectContaining({ call_index: 2, tool: 'python_exec' }),
    ]);
    expect(f.events('silas.work_item.status_changed').map((e) => e.to)).toEqual(['running', 'done']);
    expect(f.ledger.audit.verifyChain()).toMatchObject({ valid: true });
  });

  it('refuses a file_exists check outside the work directory before anything runs, naming the field', async () => {
    const f = executorFixture(tempDir());
    f.script([sh('printf hello > hello.txt')]);
    const item = f.approve(taskPlan('task-outside', 'verify:\n  - name: peek\n    run: "true"\n    expect: { file_exists: "/root/.ssh/id_ed25519" }\n'));

    const result = await f.executor.execute(item);

    expect(result).toMatchObject({ status: 'blocked', summary: expect.stringContaining('verify[0].expect.file_exists: "/root/.ssh/id_ed25519" is outside the permitted directories') });
    expect(existsSync(join(f.workDir, 'hello.txt'))).toBe(false);
    expect(f.events('silas.executor.started')).toEqual([]);
    expect(f.events('silas.executor.refused')).toEqual([expect.objectContaining({ work_item_id: 'task-outside', reason: expect.stringContaining('outside the permitted directories') })]);
  });

  it('refuses a plan edited after approval: nothing runs', async () => {
    const f = executorFixture(tempDir());
    f.script([sh('printf hello > hello.txt')]);
    const original = taskPlan('task-edit', GREETING_CHECK);
    const token = f.issue(original);
    const edited = taskPlan('task-edit', GREETING_CHECK, 'Write the greeting file, then delete the repository.');

    const refused = f.executor.authorize(edited, token);
    expect(refused).toMatchObject({ ok: false, code: 'E_APPROVAL_PLAN_HASH' });

    // Authorised as approved, then edited before execution: step 0 refuses it.
    const approved = f.executor.authorize(original, token);
    expect(approved.ok).toBe(true);
    const result = await f.executor.execute({ ...edited, approval_token: original.approval_token ?? token });
    expect(result).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('E_APPROVAL_PLAN_HASH') });
    expect(existsSync(join(f.workDir, 'hello.txt'))).toBe(false);
    expect(f.events('silas.executor.tool_call')).toHaveLength(0);
    expect(f.events('silas.executor.execution_blocked_no_approval')).toEqual([expect.objectContaining({ work_item_id: 'task-edit', code: 'E_APPROVAL_PLAN_HASH' })]);
    // The refused token is not kept with the edited plan.
    expect(f.store.get('task-edit')).toMatchObject({ status: 'blocked', approval_token: null });
  });

  it('refuses a replayed single-use token and a second execution under one approval', async () => {
    const f = executorFixture(tempDir());
    f.script([sh('printf hello > hello.txt')]);
    const plan = taskPlan('task-replay', GREETING_CHECK);
    const token = f.issue(plan);
    const first = f.executor.authorize(plan, token);
    expect(first.ok).toBe(true);
    expect(f.executor.authorize(plan, token)).toMatchObject({ ok: false, code: 'E_APPROVAL_REPLAY' });
    expect(f.count('silas_approval_consumptions')).toBe(1);

    const item = (first as { item: typeof plan }).item;
    expect((await f.executor.execute(item)).status).toBe('done');
    const again = await f.executor.execute(item);
    expect(again).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('a task cannot go from done to running') });
    expect(f.events('silas.executor.tool_call')).toHaveLength(1);
  });

  it('a non-consuming check cannot start two executions of one approval (a blocked run stays spent)', async () => {
    const f = executorFixture(tempDir());
    const gate = `gates:
  - name: confidence
    on: after_step
    after_step: 1
    type: numeric_range
    extract: confidence_score
    auto_approve: { min: 0.75, max: 1.0 }
`;
    f.script([{ step: 1, outputs: { confidence_score: 0.2 } }, sh('touch traded.txt')]);
    const item = f.approve(taskPlan('task-step', gate));
    const first = await f.executor.execute(item);
    expect(first).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('gate confidence blocked step 1') });
    expect(existsSync(join(f.workDir, 'traded.txt'))).toBe(false);

    f.script([{ step: 1, outputs: { confidence_score: 0.9 } }, sh('touch traded.txt')]);
    const second = await f.executor.execute(item);
    expect(second).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('E_APPROVAL_REPLAY') });
    expect(existsSync(join(f.workDir, 'traded.txt'))).toBe(false);
  });

  it('blocks without a token (needs_approval: false does not waive it), with an expired one, and with a forged one', async () => {
    const f = executorFixture(tempDir());
    f.script([sh('touch ran.txt')]);
    const noToken = await f.executor.execute(taskPlan('task-none', 'needs_approval: false\n'));
    expect(noToken).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('E_APPROVAL_MISSING') });

    const item = f.approve(taskPlan('task-expiring'));
    f.clock.offsetMs = 31 * 60_000;
    expect(await f.executor.execute(item)).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('E_APPROVAL_EXPIRED') });
    f.clock.offsetMs = 0;

    const other = f.approve(taskPlan('task-forged'));
    const forged = { ...other, approval_token: { ...other.approval_token!, max_executions: 5 } };
    expect(await f.executor.execute(forged)).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('E_APPROVAL_SIGNATURE') });
    expect(existsSync(join(f.workDir, 'ran.txt'))).toBe(false);
    expect(f.events('silas.executor.execution_blocked_no_approval').map((e) => e.code)).toEqual(['E_APPROVAL_MISSING', 'E_APPROVAL_EXPIRED', 'E_APPROVAL_SIGNATURE']);
  });

  it('a new approval re-runs a stuck task with the budget approved again, keeping its history; the old approval stays spent', async () => {
    const f = executorFixture(tempDir());
    const plan = taskPlan('task-again', `budget: { max_attempts: 1 }\n${GREETING_CHECK}`);
    f.script([sh('printf nope > hello.txt')]);
    const first = f.approve(plan);
    expect(await f.executor.execute(first)).toMatchObject({ status: 'stuck' });
    expect(f.store.get('task-again')).toMatchObject({ status: 'stuck', attempts: 1 });
    // The spent approval cannot start it again.
    expect(await f.executor.execute(first)).toMatchObject({ status: 'blocked' });

    f.script([sh('printf hello > hello.txt')]);
    const second = f.approve(plan);
    expect(f.store.get('task-again')).toMatchObject({ status: 'pending' });
    expect(await f.executor.execute(second)).toMatchObject({ status: 'done', budget_used: { attempts: 2 } });
    expect(f.events('silas.work_item.status_changed').map((e) => e.to)).toEqual(['running', 'running', 'stuck', 'pending', 'running', 'done']);
  });

  it('stops when the person interrupts: the running command is killed, nothing more runs, the task fails with the reason', async () => {
    const f = executorFixture(tempDir());
    f.script([sh('sleep 2; printf hello > hello.txt'), sh('printf late > late.txt')]);
    const item = f.approve(taskPlan('task-interrupted', GREETING_CHECK));
    const interrupt = new AbortController();
    setTimeout(() => interrupt.abort(), 300);

    const result = await f.executor.execute(item, { signal: interrupt.signal });

    expect(result).toMatchObject({ status: 'failed', last_error: expect.stringContaining('interrupted by the person') });
    // Had the command survived, it would have written its file by now.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(existsSync(join(f.workDir, 'hello.txt'))).toBe(false);
    expect(existsSync(join(f.workDir, 'late.txt'))).toBe(false);
    expect(f.store.get('task-interrupted')).toMatchObject({ status: 'failed' });
    expect(f.events('silas.executor.verification')).toEqual([]);
  });

  it('never trusts the agent: "done" with a failing check ends stuck after its attempts', async () => {
    const f = executorFixture(tempDir());
    f.script([sh('printf goodbye > hello.txt')], { summary: 'done' });
    const item = f.approve(taskPlan('task-liar', `budget: { max_attempts: 2 }\n${GREETING_CHECK}`));
    const result = await f.executor.execute(item);
    expect(result.status).toBe('stuck');
    expect(result.last_error).toContain('budget exhausted: max_attempts (2 of 2 attempts)');
    expect(result.verification_results).toEqual([expect.objectContaining({ name: 'greeting', passed: false, output: 'goodbye' })]);
    expect(f.events('silas.executor.attempt_failed')).toHaveLength(2);
    expect(f.store.get('task-liar')).toMatchObject({ status: 'stuck', attempts: 2 });
    expect(f.store.get('task-liar')!.verification_results).toHaveLength(2);
  });

  it('retries with the failure in the instructions, then succeeds', async () => {
    const f = executorFixture(tempDir());
    const instructions: string[] = [];
    // First attempt only leaves a marker; the second writes the greeting.
    const scripted = new ScriptedExecutorAgent([sh('if [ -f marker ]; then printf hello > hello.txt; else touch marker; fi')]);
    f.agent = { run: (context) => (instructions.push(context.instructions), scripted.run(context)) };
    const result = await f.executor.execute(f.approve(taskPlan('task-retry', GREETING_CHECK)));
    expect(result).toMatchObject({ status: 'done', budget_used: { attempts: 2 } });
    expect(instructions[0]).toBe('Write the greeting file.');
    expect(instructions[1]).toContain('## Previous attempt 1 failed\n1 of 1 verify check(s) failed\n- greeting:');
  });

  it('stops with stuck when the budget is exhausted, refusing the call that would exceed it', async () => {
    const f = executorFixture(tempDir());
    f.script([sh('touch one'), sh('touch two'), sh('touch three')], { usagePerCall: { tokens: 600 } });
    const result = await f.executor.execute(f.approve(taskPlan('task-budget', 'budget: { max_tokens: 1500 }\n')));
    // The usage of deciding the third call (1800 tokens) reaches the limit: that call never runs.
    expect(result).toMatchObject({ status: 'stuck', budget_used: { tokens: 1800, executor_runs: 2, attempts: 1 } });
    expect(result.last_error).toContain('budget exhausted: max_tokens (1800 tokens of 1500)');
    expect(existsSync(join(f.workDir, 'two'))).toBe(true);
    expect(existsSync(join(f.workDir, 'three'))).toBe(false);
    expect(f.events('silas.executor.tool_call_refused')).toEqual([expect.objectContaining({ call_index: 3, reason: expect.stringContaining('max_tokens') })]);
  });

  it('stops at the wall-time budget measured by its own clock', async () => {
    let now = Date.parse('2026-03-01T10:00:00Z');
    const f = executorFixture(tempDir(), { now: () => new Date(now) });
    const scripted = new ScriptedExecutorAgent([sh('touch a'), sh('touch b')]);
    f.agent = { run: (context) => scripted.run({ ...context, callTool: (call) => ((now += 40_000), context.callTool(call)) }) };
    f.clock.offsetMs = now - Date.now();
    const result = await f.executor.execute(f.approve(taskPlan('task-wall', 'budget: { max_wall_time_seconds: 60 }\n')));
    expect(result.status).toBe('stuck');
    expect(result.last_error).toContain('max_wall_time_seconds');
    expect(existsSync(join(f.workDir, 'b'))).toBe(false);
  });

  it('blocks a tool call at an on_tool_call gate; the other calls still run', async () => {
    const f = executorFixture(tempDir());
    const outcomes: ToolCallOutcome[] = [];
    const scripted = new ScriptedExecutorAgent([py('open("py.txt", "w").write("x")'), sh('printf hello > hello.txt')]);
    f.agent = { run: (context) => scripted.run({ ...context, callTool: async (call) => { const o = await context.callTool(call); outcomes.push(o); return o; } }) };
    const gates = `gates:
  - name: shell_only
    on: on_tool_call
    extract: tool_name
    allowed_values: [shell_exec]
    on_block: no_python
escalation:
  no_python: { action: report, message: "Python is not allowed here." }
`;
    const result = await f.executor.execute(f.approve(taskPlan('task-gated', `${gates}${GREETING_CHECK}`)));
    expect(result.status).toBe('done');
    expect(outcomes[0]).toMatchObject({ status: 'blocked', error: expect.stringContaining('gate shell_only blocked the call') });
    expect(outcomes[0]!.error).toContain('no_python: Python is not allowed here.');
    expect(existsSync(join(f.workDir, 'py.txt'))).toBe(false);
    expect(f.events('silas.executor.tool_call_blocked')).toEqual([expect.objectContaining({ call_index: 1, tool: 'python_exec' })]);
    // The gate runner audits its own results; the executor does not repeat them.
    expect(f.events('gate.result').filter((e) => e.gate === 'shell_only').map((e) => e.action)).toEqual(['block', 'continue']);
  });

  it('pauses a require_approval tool call until a verified single-step approval arrives', async () => {
    const gates = `gates:
  - name: python_needs_ok
    on: on_tool_call
    type: approval_always
    config: { tools: [python_exec] }
`;
    const declined = executorFixture(tempDir());
    declined.script([py('open("py.txt", "w").write("x")')]);
    expect(await declined.executor.execute(declined.approve(taskPlan('task-ask', gates)))).toMatchObject({ status: 'stuck' });
    expect(existsSync(join(declined.workDir, 'py.txt'))).toBe(false);
    expect(declined.events('silas.executor.gate_approval')).toEqual(expect.arrayContaining([expect.objectContaining({ granted: false, reason: expect.stringContaining('no approver') })]));

    const requests: string[] = [];
    const dir = tempDir();
    const f = executorFixture(dir, {
      gateApprover: {
        request: async (request) => {
          requests.push(String(request.payload.tool));
          return f.engine.issueToken(request.subject, { verdict: 'approved' }, { scope: 'single_step' });
        },
      },
    });
    f.script([py('open("py.txt", "w").write("x")')]);
    expect(await f.executor.execute(f.approve(taskPlan('task-ask', gates)))).toMatchObject({ status: 'done' });
    expect(requests).toEqual(['python_exec']);
    expect(readFileSync(join(f.workDir, 'py.txt'), 'utf8')).toBe('x');
    expect(f.events('silas.approval.consumed').map((e) => e.scope)).toEqual(['full_plan', 'single_step']);
  });

  it('refuses a gate approval signed for another call', async () => {
    const dir = tempDir();
    const f = executorFixture(dir, {
      gateApprover: { request: async (request) => f.engine.issueToken({ ...request.subject, hash: 'f'.repeat(64) }, { verdict: 'approved' }, { scope: 'single_step' }) },
    });
    f.script([sh('touch x')]);
    const gates = 'gates:\n  - { name: ask, on: on_tool_call, type: approval_always }\n';
    await f.executor.execute(f.approve(taskPlan('task-wrong-ok', `budget: { max_attempts: 1 }\n${gates}`)));
    expect(existsSync(join(f.workDir, 'x'))).toBe(false);
    expect(f.events('silas.executor.gate_approval')).toEqual([expect.objectContaining({ granted: false, reason: expect.stringContaining('E_APPROVAL_PLAN_HASH') })]);
  });

  it('rejects invalid tool arguments and unknown tools before the sandbox', async () => {
    const f = executorFixture(tempDir());
    const outcomes: ToolCallOutcome[] = [];
    const seen: { token: unknown; frozen: boolean }[] = [];
    const agent: ExecutorAgent = {
      run: async (context) => {
        seen.push({ token: context.item.approval_token, frozen: Object.isFrozen(context.item) && Object.isFrozen(context.item.verify) });
        outcomes.push(await context.callTool({ tool: 'shell_exec', args: { command: 'touch evil' } }));
        outcomes.push(await context.callTool({ tool: 'web_fetch', args: {} }));
        return { summary: 'tried', artifact_refs: ['report.md'], next_steps: [] };
      },
    };
    f.agent = agent;
    const result = await f.executor.execute(f.approve(taskPlan('task-invalid', 'budget: { max_attempts: 1 }\n')));
    expect(outcomes.map((o) => o.status)).toEqual(['invalid', 'invalid']);
    // The agent reads a frozen copy of the plan without its approval token.
    expect(seen).toEqual([{ token: null, frozen: true }]);
    expect(outcomes[0]!.error).toBe('shell_exec: args.command: expected an argument list such as ["ls", "-la"]; shell strings are not accepted');
    expect(result).toMatchObject({ status: 'stuck' });
    expect(f.events('silas.executor.tool_call')).toHaveLength(0);
    // What the agent claims to have produced is checked against what the tools produced.
    expect(f.events('silas.executor.artifact_ref_mismatch')).toEqual([expect.objectContaining({ claimed_but_missing: ['report.md'] })]);
  });

  it('refuses a plan whose gate cannot be compiled before anything runs, leaving the approval unspent', async () => {
    const f = executorFixture(tempDir());
    f.script([sh('touch ran')]);
    const gate = 'gates:\n  - { name: lookahead, on: on_tool_call, type: regex, extract: tool_name, config: { pattern: "(?=x)" } }\n';
    const result = await f.executor.execute(f.approve(taskPlan('task-badgate', gate)));
    expect(result).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('invalid gate, nothing ran: gate "lookahead": config.pattern') });
    expect(existsSync(join(f.workDir, 'ran'))).toBe(false);
    expect(f.count('silas_nonces', "domain = 'run'")).toBe(0);
  });

  it('fails closed when the sandbox cannot isolate the network', async () => {
    const dir = tempDir();
    const { BubblewrapSandboxManager, SandboxedEphemeralExecutor } = await import('../../sandbox/index.js');
    const f = executorFixture(dir, { ephemeral: new SandboxedEphemeralExecutor({ manager: new BubblewrapSandboxManager({ baseDir: dir, bwrapPath: '/nonexistent/bwrap' }) }) });
    f.script([sh('touch x'), sh('touch y')]);
    const result = await f.executor.execute(f.approve(taskPlan('task-nosandbox', GREETING_CHECK)));
    expect(result).toMatchObject({ status: 'failed', last_error: expect.stringContaining('E_SANDBOX_NETWORK_UNAVAILABLE') });
    expect(f.events('silas.executor.tool_call')).toHaveLength(1);
  });

  it('treats a throwing agent as a failed attempt and retries', async () => {
    const f = executorFixture(tempDir());
    let runs = 0;
    const good = new ScriptedExecutorAgent([sh('printf hello > hello.txt')]);
    f.agent = { run: (context) => (++runs === 1 ? Promise.reject(new Error('model unavailable')) : good.run(context)) };
    const result = await f.executor.execute(f.approve(taskPlan('task-throw', GREETING_CHECK)));
    expect(result).toMatchObject({ status: 'done', budget_used: { attempts: 2 } });
    expect(f.events('silas.executor.attempt_failed')[0]).toMatchObject({ reason: expect.stringContaining('the agent failed: model unavailable') });
  });

  it('without verify checks, only a clean run counts as done', async () => {
    const f = executorFixture(tempDir());
    f.script([sh('exit 3')]);
    expect(await f.executor.execute(f.approve(taskPlan('task-dirty', 'budget: { max_attempts: 1 }\n')))).toMatchObject({ status: 'stuck' });
    f.script([sh('true')]);
    expect(await f.executor.execute(f.approve(taskPlan('task-clean')))).toMatchObject({ status: 'done', verification_results: [] });
  });
});

describe('WorkItemExecutor: planner, steps and follow-ups', () => {
  it('consults the planner from the third failed attempt and passes its guidance on', async () => {
    const consulted: number[] = [];
    const dir = tempDir();
    const f = executorFixture(dir, {
      planner: {
        consult: async (request) => {
          consulted.push(request.attempt);
          return { guidance: 'Write exactly the word hello, without a newline.', tokens_used: 50 };
        },
      },
    });
    const instructions: string[] = [];
    const scripted = new ScriptedExecutorAgent((attempt) => [sh(attempt < 4 ? 'echo nope > hello.txt' : 'printf hello > hello.txt')]);
    f.agent = { run: (context) => (instructions.push(context.instructions), scripted.run(context)) };
    const result = await f.executor.execute(f.approve(taskPlan('task-planner', GREETING_CHECK)));
    expect(result).toMatchObject({ status: 'done', budget_used: { attempts: 4, planner_calls: 1, tokens: 50 } });
    expect(consulted).toEqual([3]);
    expect(instructions[3]).toContain('## Planner guidance\nWrite exactly the word hello, without a newline.');
    expect(f.events('silas.executor.planner_consulted')).toHaveLength(1);
  });

  it('runs after_step gates on reported outputs, and on missing reports so a gate cannot be skipped', async () => {
    const gate = `gates:
  - name: position
    on: after_step
    after_step: 2
    type: numeric_range
    extract: position_usd
    auto_approve: { min: 0, max: 25 }
`;
    const f = executorFixture(tempDir());
    f.script([{ step: 2, outputs: { position_usd: 20 } }, sh('touch ordered')]);
    expect(await f.executor.execute(f.approve(taskPlan('task-step-ok', gate)))).toMatchObject({ status: 'done' });
    expect(existsSync(join(f.workDir, 'ordered'))).toBe(true);

    f.script([sh('touch silent')]);
    const silent = await f.executor.execute(f.approve(taskPlan('task-step-silent', gate)));
    expect(silent).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('gate position blocked step 2: Value not found in context: position_usd') });
  });

  it('hydrates the artifacts of the item it follows up, and blocks on a broken link', async () => {
    const f = executorFixture(tempDir());
    const previous = f.store.save(taskPlan('task-first'));
    f.store.updateStatus(previous.id, 'running', previous.budget_used);
    f.store.recordResult({
      work_item_id: previous.id,
      status: 'done',
      summary: 'ok',
      last_error: null,
      verification_results: [],
      budget_used: previous.budget_used,
      artifacts: { report: 'findings', raw: 'data' },
      next_steps: [],
    });
    const seen: Record<string, string>[] = [];
    f.agent = { run: async (context) => (seen.push({ ...context.inputArtifacts }), { summary: 'read', artifact_refs: [], next_steps: [] }) };
    const followUp = (id: string, keys: string) => taskPlan(id, `follow_up_of: task-first\ninput_artifacts_from: ${keys}\n`);
    expect(await f.executor.execute(f.approve(followUp('task-deeper', '[report]')))).toMatchObject({ status: 'done' });
    expect(seen).toEqual([{ report: 'findings' }]);
    expect(await f.executor.execute(f.approve(followUp('task-all', '["*"]')))).toMatchObject({ status: 'done' });
    expect(seen[1]).toEqual({ report: 'findings', raw: 'data' });

    const missing = await f.executor.execute(f.approve(followUp('task-missing', '[summary]')));
    expect(missing).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('input_artifacts_from: task-first has no artifact "summary"') });
    const unlinked = await f.executor.execute(f.approve(taskPlan('task-orphan', 'follow_up_of: task-nowhere\n')));
    expect(unlinked).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('work item task-nowhere is not in the work item store') });
    expect(seen).toHaveLength(2);
    expect(f.events('silas.executor.follow_up_unlinked')).toHaveLength(2);
  });
});
