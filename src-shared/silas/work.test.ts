import { describe, expect, it } from 'vitest';
import {
  Budget,
  BudgetUsed,
  EXPECTATION_PREDICATES,
  EscalationAction,
  Expectation,
  VerificationCheck,
  WorkItem,
  WorkItemResult,
  budgetExceeds,
  defaultAgent,
  emptyBudgetUsed,
  exhaustedBudgetFields,
  expectationPredicate,
  formatBudgetUsage,
  mergeBudgetUsed,
  type WorkItemInput,
} from './work.js';

/** The messages zod produced, as `path: message`, so tests assert on the field and the reason. */
function problems(result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }): string[] {
  if (result.success) return [];
  return result.error!.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`);
}

const task = (extra: Partial<WorkItemInput> = {}): WorkItemInput => ({ id: 'task-a', type: 'task', title: 'A', ...extra });

describe('Budget and BudgetUsed', () => {
  it('fills the §3.3 defaults', () => {
    expect(Budget.parse({})).toEqual({ max_tokens: 200_000, max_cost_usd: 2, max_wall_time_seconds: 1800, max_attempts: 5, max_planner_calls: 3 });
    expect(BudgetUsed.parse({})).toEqual(emptyBudgetUsed());
  });

  it.each(['max_tokens', 'max_cost_usd', 'max_wall_time_seconds', 'max_attempts', 'max_planner_calls'])('refuses a zero or negative %s', (field) => {
    for (const value of [0, -1]) {
      const issues = problems(Budget.safeParse({ [field]: value }));
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatch(new RegExp(`^${field}: expected a positive`));
    }
  });

  it('refuses fractional counts, non-numbers and unknown fields', () => {
    expect(problems(Budget.safeParse({ max_tokens: 1.5 }))).toEqual(['max_tokens: expected a positive integer']);
    expect(problems(Budget.safeParse({ max_tokens: '100' }))).toEqual(['max_tokens: expected a positive integer']);
    expect(problems(Budget.safeParse({ max_token: 100 }))[0]).toMatch(/max_token/);
    expect(problems(BudgetUsed.safeParse({ tokens: -1 }))).toEqual(['tokens: expected a whole number >= 0']);
  });

  const budget = Budget.parse({ max_tokens: 100, max_cost_usd: 1, max_wall_time_seconds: 60, max_attempts: 3, max_planner_calls: 2 });
  const limits = [
    ['tokens', 'max_tokens', 100],
    ['cost_usd', 'max_cost_usd', 1],
    ['wall_time_seconds', 'max_wall_time_seconds', 60],
    ['attempts', 'max_attempts', 3],
    ['planner_calls', 'max_planner_calls', 2],
  ] as const;

  it.each(limits)('counts %s reaching its limit exactly as exhausted (>=, not >)', (spent, limit, max) => {
    const below = { ...emptyBudgetUsed(), [spent]: max - 0.5 };
    const at = { ...emptyBudgetUsed(), [spent]: max };
    const above = { ...emptyBudgetUsed(), [spent]: max + 1 };
    expect(budgetExceeds(below, budget)).toBe(false);
    expect(budgetExceeds(at, budget)).toBe(true);
    expect(exhaustedBudgetFields(at, budget)).toEqual([limit]);
    expect(budgetExceeds(above, budget)).toBe(true);
  });

  it('lists every exhausted limit and never limits executor_runs', () => {
    expect(exhaustedBudgetFields({ ...emptyBudgetUsed(), executor_runs: 10_000 }, budget)).toEqual([]);
    const all = { tokens: 100, cost_usd: 1, wall_time_seconds: 60, attempts: 3, planner_calls: 2, executor_runs: 0 };
    expect(exhaustedBudgetFields(all, budget)).toEqual(['max_tokens', 'max_cost_usd', 'max_wall_time_seconds', 'max_attempts', 'max_planner_calls']);
  });

  it('merges every field, including attempts and executor_runs, without mutating its inputs', () => {
    const parent = { tokens: 1, cost_usd: 0.25, wall_time_seconds: 2, attempts: 3, planner_calls: 4, executor_runs: 5 };
    const child = { tokens: 10, cost_usd: 0.5, wall_time_seconds: 20, attempts: 30, planner_calls: 40, executor_runs: 50 };
    const before = JSON.stringify([parent, child]);
    expect(mergeBudgetUsed(parent, child)).toEqual({ tokens: 11, cost_usd: 0.75, wall_time_seconds: 22, attempts: 33, planner_calls: 44, executor_runs: 55 });
    expect(JSON.stringify([parent, child])).toBe(before);
    // Every BudgetUsed key is covered, so a field added later cannot be silently dropped.
    expect(Object.keys(mergeBudgetUsed(parent, child)).sort()).toEqual(Object.keys(BudgetUsed.parse({})).sort());
  });

  it('formats usage against the budget for cards', () => {
    const used = { tokens: 1200, cost_usd: 0.123, wall_time_seconds: 30.4, attempts: 1, planner_calls: 0, executor_runs: 1 };
    expect(formatBudgetUsage(used, Budget.parse({}))).toBe('tokens 1,200/200,000 · cost $0.12/$2.00 · time 30s/1,800s · attempts 1/5 · planner calls 0/3');
  });
});

describe('Expectation', () => {
  const examples: Record<(typeof EXPECTATION_PREDICATES)[number], unknown> = {
    exit_code: 0,
    equals: 'ok',
    contains: 'passed',
    regex: '^v\\d+',
    output_lt: 3600,
    output_gt: -1.5,
    file_exists: 'dist/app.js',
    not_empty: true,
  };

  it.each(Object.entries(examples))('accepts %s alone and reports it as the predicate', (field, value) => {
    const parsed = Expectation.parse({ [field]: value });
    expect(expectationPredicate(parsed)).toBe(field);
    // Unset predicates are null, as Pydantic dumps them, so every spelling hashes alike.
    expect(Object.values(parsed).filter((v) => v === null)).toHaveLength(7);
  });

  it('refuses zero predicates and two predicates with a clear message', () => {
    expect(problems(Expectation.safeParse({}))).toEqual([
      ': exactly one predicate is required, none given; use one of: exit_code, equals, contains, regex, output_lt, output_gt, file_exists, not_empty',
    ]);
    expect(problems(Expectation.safeParse({ exit_code: 0, equals: 'ok' }))).toEqual([
      ': exactly one predicate is allowed, 2 given (exit_code, equals); split them into separate checks',
    ]);
    expect(problems(Expectation.safeParse({ exit_code: null, equals: 'ok' }))).toEqual([]);
  });

  it('refuses not_empty: false, which checks nothing', () => {
    expect(problems(Expectation.safeParse({ not_empty: false }))[0]).toMatch(/^not_empty: not_empty: false checks nothing/);
  });

  it('refuses file_exists paths containing ".." or NUL, and unknown predicates', () => {
    for (const path of ['../etc/shadow', 'a/../../b', 'logs/..', '..']) {
      expect(problems(Expectation.safeParse({ file_exists: path }))[0]).toMatch(/^file_exists: paths containing "\.\." are not allowed/);
    }
    expect(problems(Expectation.safeParse({ file_exists: 'a\0b' }))[0]).toMatch(/NUL/);
    expect(problems(Expectation.safeParse({ file_exists: '' }))[0]).toMatch(/^file_exists: expected a file path/);
    expect(problems(Expectation.safeParse({ exit_code: 0, matches: 'x' }))[0]).toMatch(/matches/);
  });

  it('refuses non-finite numeric bounds and fractional exit codes', () => {
    expect(Expectation.safeParse({ output_lt: Infinity }).success).toBe(false);
    expect(Expectation.safeParse({ exit_code: 0.5 }).success).toBe(false);
  });
});

describe('VerificationCheck and EscalationAction', () => {
  it('defaults timeout to 60 seconds and network to false', () => {
    expect(VerificationCheck.parse({ name: 'tests', run: 'npm test', expect: { exit_code: 0 } })).toMatchObject({ timeout: 60, network: false });
  });

  it('refuses a missing command, a zero timeout and unknown fields', () => {
    expect(problems(VerificationCheck.safeParse({ name: 't', expect: { exit_code: 0 } }))).toEqual(['run: expected a shell command']);
    expect(problems(VerificationCheck.safeParse({ name: 't', run: 'x', expect: { exit_code: 0 }, timeout: 0 }))).toEqual(['timeout: expected a positive integer']);
    expect(problems(VerificationCheck.safeParse({ name: 't', run: 'x', expect: { exit_code: 0 }, retries: 2 }))[0]).toMatch(/retries/);
  });

  it('fills escalation defaults and validates the action', () => {
    expect(EscalationAction.parse({ action: 'report' })).toEqual({ action: 'report', queue: null, message: null, instruction: null, max_retries: 2, fallback: null });
    expect(problems(EscalationAction.safeParse({ action: 'explode' }))[0]).toMatch(/^action: expected one of: report, escalate_human/);
    expect(problems(EscalationAction.safeParse({ action: 'transfer_to_queue' }))).toEqual(['queue: transfer_to_queue needs a queue to transfer to']);
  });
});

describe('WorkItem', () => {
  it('fills every default of §3.3', () => {
    const item = WorkItem.parse(task({ created_at: '2026-01-01T00:00:00.000Z' }));
    expect(item).toEqual({
      id: 'task-a',
      type: 'task',
      title: 'A',
      parent: null,
      spawned_by: null,
      follow_up_of: null,
      domain: null,
      agent: 'ephemeral',
      budget: Budget.parse({}),
      needs_approval: true,
      approval_token: null,
      body: '',
      interaction_mode: 'confirm_only_when_required',
      input_artifacts_from: [],
      verify: [],
      gates: [],
      skills: [],
      access_levels: {},
      escalation: {},
      schedule: null,
      on_failure: 'report',
      on_stuck: 'consult_planner',
      failure_context: null,
      tasks: [],
      depends_on: [],
      status: 'pending',
      attempts: 0,
      budget_used: emptyBudgetUsed(),
      verification_results: [],
      created_at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('stamps created_at as a UTC instant and refuses local or offset times', () => {
    expect(WorkItem.parse(task()).created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(WorkItem.safeParse(task({ created_at: '2026-01-01T00:00:00+02:00' })).success).toBe(false);
    expect(WorkItem.safeParse(task({ created_at: '2026-01-01 00:00' })).success).toBe(false);
  });

  describe('execution lane', () => {
    it('requires tasks and projects to use the ephemeral lane', () => {
      expect(problems(WorkItem.safeParse(task({ agent: 'stream' })))).toEqual(['agent: a task must use agent: ephemeral (only goals may configure the stream lane)']);
      expect(problems(WorkItem.safeParse({ id: 'p', type: 'project', title: 'P', agent: 'stream' }))).toEqual([
        'agent: a project must use agent: ephemeral (only goals may configure the stream lane)',
      ]);
    });

    it('defaults an always_on goal to the stream lane, other goals to ephemeral, and honours an explicit lane', () => {
      expect(WorkItem.parse({ id: 'g', type: 'goal', title: 'G', schedule: 'always_on' }).agent).toBe('stream');
      expect(WorkItem.parse({ id: 'g', type: 'goal', title: 'G', schedule: '*/30 * * * *' }).agent).toBe('ephemeral');
      expect(WorkItem.parse({ id: 'g', type: 'goal', title: 'G' }).agent).toBe('ephemeral');
      expect(WorkItem.parse({ id: 'g', type: 'goal', title: 'G', schedule: 'always_on', agent: 'ephemeral' }).agent).toBe('ephemeral');
      expect(WorkItem.parse({ id: 'g', type: 'goal', title: 'G', agent: 'stream' }).agent).toBe('stream');
      expect(defaultAgent('task', 'always_on')).toBe('ephemeral');
    });
  });

  it('refuses unknown fields, bad ids and bad skill names', () => {
    expect(problems(WorkItem.safeParse(task({ bogus: 1 } as Partial<WorkItemInput>)))[0]).toMatch(/bogus/);
    for (const id of ['../etc', 'a/b', '.hidden', '', 'a b']) {
      expect(problems(WorkItem.safeParse(task({ id })))[0]).toMatch(/^id: expected an id of 1-200 characters/);
    }
    expect(problems(WorkItem.safeParse(task({ skills: ['Coding'] })))[0]).toMatch(/^skills\.0: skill names use lowercase/);
    expect(problems(WorkItem.safeParse(task({ skills: ['coding', 'coding'] })))).toEqual(['skills.1: "coding" is listed twice']);
    expect(problems(WorkItem.safeParse(task({ title: '   ' })))).toEqual(['title: expected a non-empty title']);
  });

  it('keeps schedules on goals and child tasks on projects', () => {
    expect(problems(WorkItem.safeParse(task({ schedule: '*/5 * * * *' })))).toEqual(['schedule: only goals have a schedule; remove it or make this a goal']);
    expect(problems(WorkItem.safeParse(task({ tasks: ['task-b'] })))).toEqual(['tasks: only projects list child tasks; remove tasks or make this a project']);
    expect(problems(WorkItem.safeParse({ id: 'g', type: 'goal', title: 'G', schedule: 'every 5 minutes' }))[0]).toMatch(/^schedule: expected a cron expression/);
    expect(WorkItem.safeParse({ id: 'g', type: 'goal', title: 'G', schedule: '0 */2 * * 1-5' }).success).toBe(true);
    expect(WorkItem.safeParse({ id: 'g', type: 'goal', title: 'G', schedule: '0 0 */2 * * 1-5' }).success).toBe(true);
  });

  it('refuses self references and repeated ids in the hierarchy', () => {
    expect(problems(WorkItem.safeParse({ id: 'p', type: 'project', title: 'P', tasks: ['a', 'p'] }))).toEqual(['tasks.1: a work item cannot list itself (p) in tasks']);
    expect(problems(WorkItem.safeParse(task({ depends_on: ['task-a'] })))).toEqual(['depends_on.0: a work item cannot list itself (task-a) in depends_on']);
    expect(problems(WorkItem.safeParse(task({ parent: 'task-a' })))).toEqual(['parent: a work item cannot name itself (task-a) as parent']);
    expect(problems(WorkItem.safeParse(task({ depends_on: ['x', 'x'] })))).toEqual(['depends_on.1: "x" is listed twice']);
  });

  it('ties input_artifacts_from to follow_up_of, with "*" alone', () => {
    expect(problems(WorkItem.safeParse(task({ input_artifacts_from: ['report'] })))).toEqual([
      'input_artifacts_from: input_artifacts_from needs follow_up_of naming the work item to import from',
    ]);
    expect(WorkItem.safeParse(task({ follow_up_of: 'task-0', input_artifacts_from: ['*'] })).success).toBe(true);
    expect(problems(WorkItem.safeParse(task({ follow_up_of: 'task-0', input_artifacts_from: ['*', 'report'] })))[0]).toMatch(/"\*" already imports every artifact/);
  });

  describe('escalation references', () => {
    const gate = { name: 'g1', on: 'every_user_message' as const, on_block: 'polite' };

    it('resolves on_failure, on_stuck, gate on_block and fallbacks to an entry or a built-in action', () => {
      const ok = task({
        on_failure: 'spawn_task',
        on_stuck: 'report',
        gates: [gate],
        escalation: { polite: { action: 'respond', message: 'hi', fallback: 'escalate_human' } },
      });
      expect(problems(WorkItem.safeParse(ok))).toEqual([]);
      expect(problems(WorkItem.safeParse(task({ on_failure: 'sms_owner' }))))
        .toEqual(['on_failure: unknown escalation "sms_owner"; define it under escalation or use one of: report, escalate_human, transfer_to_queue, suppress_and_rephrase, suppress_and_escalate, respond, spawn_task, retry']);
      expect(problems(WorkItem.safeParse(task({ gates: [gate] })))[0]).toMatch(/^gates\.0\.on_block: unknown escalation "polite"/);
      expect(problems(WorkItem.safeParse(task({ on_stuck: 'panic' })))[0]).toMatch(/^on_stuck: unknown escalation "panic".*or consult_planner$/);
      expect(problems(WorkItem.safeParse(task({ escalation: { a: { action: 'respond', fallback: 'nowhere' } } })))[0]).toMatch(/^escalation\.a\.fallback: unknown escalation "nowhere"/);
    });

    it('refuses fallback loops', () => {
      const looping = task({
        escalation: { a: { action: 'respond', fallback: 'b' }, b: { action: 'respond', fallback: 'c' }, c: { action: 'report', fallback: 'a' } },
      });
      expect(problems(WorkItem.safeParse(looping))).toEqual(['escalation.a.fallback: fallbacks form a loop (a -> b -> c -> a); end the chain with a plain action']);
      expect(problems(WorkItem.safeParse(task({ escalation: { a: { action: 'retry', fallback: 'a' } } })))[0]).toMatch(/loop \(a -> a\)/);
    });

    it('refuses two gates with the same name', () => {
      const twice = task({ gates: [{ ...gate, on_block: 'report' }, { ...gate, on_block: 'report' }] });
      expect(problems(WorkItem.safeParse(twice))).toEqual(['gates.1.name: gate name "g1" is used twice; gate names must be unique']);
    });
  });
});

describe('WorkItemResult', () => {
  it('accepts only final statuses', () => {
    const result = { work_item_id: 'task-a', status: 'done', summary: 'ok', budget_used: emptyBudgetUsed() };
    expect(WorkItemResult.parse(result)).toMatchObject({ last_error: null, verification_results: [], artifacts: {}, next_steps: [] });
    expect(WorkItemResult.safeParse({ ...result, status: 'running' }).success).toBe(false);
    expect(WorkItemResult.safeParse({ ...result, status: 'pending' }).success).toBe(false);
  });
});
