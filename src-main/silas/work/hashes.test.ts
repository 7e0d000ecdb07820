import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src-shared/canonical.js';
import { WorkItem, type WorkItemInput } from '../../../src-shared/silas/work.js';
import {
  PLAN_HASH_EXCLUDED_FIELDS,
  PLAN_HASH_FIELDS,
  batchHash,
  batchProjection,
  planHash,
  planHashText,
  planProjection,
  spawnPolicyHash,
  spawnPolicyProjection,
} from './hashes.js';
import { parsePlan } from './plan-parser.js';

// Golden values were computed once with Python (json.dumps(sort_keys=True, separators=(",", ":"),
// ensure_ascii=False) + hashlib.sha256) from dicts written out by hand from the spec, not from
// this code's output. See docs/silas/work-models.md for the exact commands' shape.

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

const spawnGoalInput: WorkItemInput = {
  id: 'goal-bot-health',
  type: 'goal',
  title: 'Bot health',
  schedule: '*/30 * * * *',
  failure_context: 'Failed checks:\n$failed_checks\nRestart the bot.',
  skills: ['ops', 'coding'],
  on_failure: 'spawn_fix',
  gates: [
    {
      name: 'zeta_gate',
      on: 'on_tool_call',
      provider: 'predicate',
      type: 'string_match',
      extract: 'tool_name',
      allowed_values: ['shell_exec'],
      approval_values: ['python_exec'],
      on_block: 'notify',
    },
    {
      name: 'alpha',
      on: 'every_user_message',
      provider: 'script',
      type: 'custom_check',
      check: 'verify_customer',
      config: { script: 'guards/verify.py', args_from_env: ['CUSTOMER_NAME'] },
      check_expect: { equals: 'verified' },
    },
  ],
  verify: [
    { name: 'proc_alive', run: 'pgrep -f bot', expect: { exit_code: 0 } },
    { name: 'api_ok', run: 'curl -sf https://api.example.com/health', expect: { equals: 'ok' }, timeout: 30, network: true },
  ],
  escalation: {
    notify: { action: 'report', message: 'Gate blocked.' },
    spawn_fix: { action: 'spawn_task', max_retries: 3, fallback: 'notify' },
    unused: { action: 'respond', message: 'hi' },
  },
};

describe('planHash', () => {
  it('matches an independently computed golden value for the §13.1 plan', () => {
    const item = parsePlan(fixture('spec-13-1-fix-bug.md'));
    expect(planHash(item)).toBe('64edcf6f34b8be98cb612441bf1a20b27de5b18befb50b433df77394b87cb68a');
  });

  it('projects exactly the 23 included fields and none of the excluded ones', () => {
    const item = parsePlan(fixture('spec-13-2-support-chatbot.md'));
    const keys = Object.keys(planProjection(item)).sort();
    expect(keys).toEqual([...PLAN_HASH_FIELDS].sort());
    expect(keys).toHaveLength(23);
    for (const excluded of PLAN_HASH_EXCLUDED_FIELDS) expect(keys).not.toContain(excluded);
    // Together the two lists cover every WorkItem field, so no field is silently unclassified.
    expect([...PLAN_HASH_FIELDS, ...PLAN_HASH_EXCLUDED_FIELDS].sort()).toEqual(Object.keys(item).sort());
  });

  it('is 64 lowercase hex characters over the canonical projection', () => {
    const item = parsePlan(fixture('spec-13-5-deploy-project.md'));
    expect(planHash(item)).toMatch(/^[0-9a-f]{64}$/);
    expect(planHashText(item)).toBe(canonicalJson(planProjection(item)));
  });

  const base = parsePlan(fixture('spec-13-3-trading-bot.md'));
  const baseHash = planHash(base);

  // One change per included field; each must produce a different hash.
  const includedChanges: Record<(typeof PLAN_HASH_FIELDS)[number], Partial<WorkItem>> = {
    id: { id: 'task-trade-weather-2' },
    type: { type: 'project' },
    title: { title: 'Execute a different trade' },
    parent: { parent: 'project-trading' },
    spawned_by: { spawned_by: 'goal-trader' },
    follow_up_of: { follow_up_of: 'task-trade-previous' },
    domain: { domain: 'business:trading' },
    agent: { agent: 'stream' },
    budget: { budget: { ...base.budget, max_cost_usd: 1.51 } },
    body: { body: base.body + '\n- Never trade on Fridays' },
    interaction_mode: { interaction_mode: 'act_and_report' },
    input_artifacts_from: { input_artifacts_from: ['*'] },
    verify: { verify: [{ ...base.verify[0]!, run: 'python scripts/check_kalshi_order.py --any' }] },
    gates: { gates: [base.gates[0]!] },
    skills: { skills: ['trading'] },
    access_levels: { access_levels: { public: { description: '', tools: ['quote'], requires: [], expires_after: null } } },
    escalation: { escalation: { abort_trade: { ...base.escalation.abort_trade!, message: 'Aborted.' } } },
    schedule: { schedule: '0 * * * *' },
    on_failure: { on_failure: 'escalate_human' },
    on_stuck: { on_stuck: 'report' },
    failure_context: { failure_context: '$failed_checks' },
    tasks: { tasks: ['task-a'] },
    depends_on: { depends_on: ['task-setup'] },
  };
  for (const [field, change] of Object.entries(includedChanges)) {
    it(`changes when the included field ${field} changes`, () => {
      expect(planHash({ ...base, ...change })).not.toBe(baseHash);
    });
  }

  it('changes when a gate threshold is nudged (the §13.3 risk limit)', () => {
    const gates = base.gates.map((gate) => (gate.name === 'position_size' ? { ...gate, block: { outside: [0, 100.01] as [number, number] } } : gate));
    expect(planHash({ ...base, gates })).not.toBe(baseHash);
  });

  it('does not change when excluded runtime fields change', () => {
    const changed: WorkItem = {
      ...base,
      needs_approval: false,
      status: 'done',
      attempts: 4,
      budget_used: { tokens: 10, cost_usd: 0.5, wall_time_seconds: 3, attempts: 4, planner_calls: 1, executor_runs: 4 },
      verification_results: [{ name: 'order_placed', passed: true }],
      created_at: '2030-01-01T00:00:00.000Z',
    };
    expect(planHash(changed)).toBe(baseHash);
  });

  it('does not change when an approval token is attached', () => {
    const token = {
      token_id: 'a'.repeat(64),
      plan_hash: baseHash,
      work_item_id: base.id,
      scope: 'full_plan',
      verdict: 'approved',
      signature: `${'A'.repeat(85)}A==`,
      issued_at: '2030-01-01T00:00:00.000Z',
      expires_at: '2030-01-01T01:00:00.000Z',
      nonce: 'n-1',
      approval_strength: 'tap',
      conditions: {},
      max_executions: 1,
      executions_used: 1,
      execution_nonces: ['e-1'],
      key_fingerprint: 'fp',
    };
    // Built by hand: the token's own validation belongs to the approval models' tests.
    const withToken = { ...base, approval_token: token as unknown as WorkItem['approval_token'] };
    expect(planHash(withToken)).toBe(baseHash);
  });

  it('hashes two spellings of the same plan alike (defaults filled, key order irrelevant)', () => {
    const terse = parsePlan('---\nid: task-a\ntype: task\ntitle: A\n---\nDo it.\n');
    const verbose = parsePlan(
      [
        '---',
        'title: A',
        'type: task',
        'id: task-a',
        'agent: ephemeral',
        'parent: null',
        'budget: { max_planner_calls: 3, max_attempts: 5, max_wall_time_seconds: 1800, max_cost_usd: 2.0, max_tokens: 200000 }',
        'interaction_mode: confirm_only_when_required',
        'on_failure: report',
        'skills: []',
        '---',
        '',
        'Do it.',
      ].join('\n'),
    );
    expect(planHash(verbose)).toBe(planHash(terse));
  });
});

describe('spawnPolicyHash', () => {
  const goal = WorkItem.parse(spawnGoalInput);

  it('matches an independently computed golden value (§3.6 reference code)', () => {
    expect(spawnPolicyHash(goal)).toBe('6fac16cc54e79d205cc42761024fb6ed9ade7e0949f95af33520a2690de098b7');
  });

  it('keeps only escalations named by on_failure or a gate on_block, and sorts lists', () => {
    const projection = spawnPolicyProjection(goal) as { skills: string[]; escalation_config: Record<string, unknown>; gates: string[] };
    expect(Object.keys(projection.escalation_config)).toEqual(['notify', 'spawn_fix']);
    expect(projection.skills).toEqual(['coding', 'ops']);
    expect(projection.gates).toHaveLength(2);
    expect([...projection.gates].sort()).toEqual(projection.gates);
    expect(JSON.parse(projection.gates[1]!)).toEqual(goal.gates.find((gate) => gate.name === 'alpha'));
  });

  it('is independent of list order and duplicate skills', () => {
    const reordered = { ...goal, skills: ['coding', 'ops', 'ops'], gates: [...goal.gates].reverse(), verify: [...goal.verify].reverse() };
    expect(spawnPolicyHash(reordered)).toBe(spawnPolicyHash(goal));
  });

  it('hashes the raw failure_context template, and a missing one as ""', () => {
    const substituted = { ...goal, failure_context: goal.failure_context!.replace('$failed_checks', 'proc_alive: exit 1') };
    expect(spawnPolicyHash(substituted)).not.toBe(spawnPolicyHash(goal));
    expect(spawnPolicyHash({ ...goal, failure_context: null })).toBe(spawnPolicyHash({ ...goal, failure_context: '' }));
  });

  const changes: Record<string, Partial<WorkItem>> = {
    failure_context: { failure_context: 'Failed: $failed_checks' },
    skills: { skills: ['ops'] },
    gates: { gates: [goal.gates[0]!] },
    verify: { verify: [{ ...goal.verify[0]!, timeout: 61 }] },
    'a referenced escalation': { escalation: { ...goal.escalation, notify: { ...goal.escalation.notify!, message: 'Changed.' } } },
    on_failure: { on_failure: 'unused' },
  };
  for (const [what, change] of Object.entries(changes)) {
    it(`changes when ${what} changes`, () => {
      expect(spawnPolicyHash({ ...goal, ...change })).not.toBe(spawnPolicyHash(goal));
    });
  }

  it('ignores fields outside the spawn policy and unreferenced escalations', () => {
    const unrelated = {
      ...goal,
      title: 'Renamed',
      schedule: '0 * * * *',
      budget: { ...goal.budget, max_tokens: 1 },
      escalation: { ...goal.escalation, unused: { ...goal.escalation.unused!, message: 'changed' } },
    };
    expect(spawnPolicyHash(unrelated)).toBe(spawnPolicyHash(goal));
  });
});

describe('batchHash', () => {
  const binding = { goal_id: 'goal-inbox', action: 'archive', item_ids: ['m-3', 'm-1', 'm-2'] };

  it('matches independently computed golden values', () => {
    expect(batchHash(binding)).toBe('9a0771f11be16d28d4f299e080981f53bbc8863387db15dd12adfaa0a878d236');
    expect(batchHash({ ...binding, item_ids: ['m-1', 'm-2', 'm-3'] })).toBe('5068b4442d5c5f1e8ded11f73a225919a27363b20f3728180f8f7b7c852bffc9');
  });

  it('projects {goal_id, action, item_ids, count} with the given order', () => {
    expect(batchProjection(binding)).toEqual({ goal_id: 'goal-inbox', action: 'archive', item_ids: ['m-3', 'm-1', 'm-2'], count: 3 });
  });

  it('changes with the goal, the action, any item, or the item count', () => {
    const hash = batchHash(binding);
    expect(batchHash({ ...binding, goal_id: 'goal-other' })).not.toBe(hash);
    expect(batchHash({ ...binding, action: 'delete' })).not.toBe(hash);
    expect(batchHash({ ...binding, item_ids: ['m-3', 'm-1', 'm-4'] })).not.toBe(hash);
    expect(batchHash({ ...binding, item_ids: ['m-3', 'm-1'] })).not.toBe(hash);
  });

  it('refuses empty, repeated or unnamed bindings', () => {
    expect(() => batchHash({ ...binding, item_ids: [] })).toThrow(/at least one item/);
    expect(() => batchHash({ ...binding, item_ids: ['m-1', 'm-1'] })).toThrow(/repeat/);
    expect(() => batchHash({ ...binding, action: '' })).toThrow(/must not be empty/);
  });
});
