import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isSilasError } from '../../../src-shared/errors.js';
import { WorkItem } from '../../../src-shared/silas/work.js';
import { MAX_PLAN_BYTES, PLAN_INVALID, PlanParseError, parsePlan, splitFrontMatter, tryParsePlan } from './plan-parser.js';

const fixturesDir = new URL('./fixtures/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, fixturesDir), 'utf8');

/** The thrown PlanParseError's message, or a failure if the plan parsed. */
function refusal(markdown: string, file?: string): PlanParseError {
  const result = tryParsePlan(markdown, file === undefined ? {} : { file });
  if (result.ok) throw new Error('expected the plan to be refused');
  return result.error;
}

const plan = (...frontMatter: string[]) => ['---', 'id: task-a', 'type: task', 'title: A', ...frontMatter, '---', 'Body.'].join('\n');

describe('parsePlan on the example plans of spec §13 and §7.2', () => {
  it('parses every fixture', () => {
    const names = readdirSync(fixturesDir).filter((name) => name.endsWith('.md'));
    expect(names.length).toBeGreaterThanOrEqual(6);
    for (const name of names) expect(() => parsePlan(fixture(name), { file: name }), name).not.toThrow();
  });

  it('§13.1: a task with two exit-code checks and defaults filled', () => {
    const item = parsePlan(fixture('spec-13-1-fix-bug.md'));
    expect(item).toMatchObject({ id: 'task-fix-tz-bug', type: 'task', agent: 'ephemeral', interaction_mode: 'act_and_report', on_stuck: 'consult_planner' });
    expect(item.budget).toEqual({ max_tokens: 200_000, max_cost_usd: 2, max_wall_time_seconds: 1800, max_attempts: 5, max_planner_calls: 3 });
    expect(item.verify.map((check) => [check.name, check.run, check.expect.exit_code, check.timeout, check.network])).toEqual([
      ['tests_pass', 'pytest tests/test_shifts.py -v', 0, 60, false],
      ['lint_clean', 'ruff check .', 0, 60, false],
    ]);
    expect(item.body.startsWith('# Context\n\nThe shift roster generator')).toBe(true);
    expect(item.body.endsWith('If bug is NOT in slot_allocator.py, stop and consult')).toBe(true);
    expect(item).toMatchObject({ needs_approval: true, status: 'pending', skills: [], gates: [], approval_token: null });
  });

  it('§13.2: a stream-lane chatbot goal with gates, access levels and escalations', () => {
    const item = parsePlan(fixture('spec-13-2-support-chatbot.md'));
    expect(item).toMatchObject({ type: 'goal', agent: 'stream', schedule: 'always_on', interaction_mode: 'confirm_only_when_required' });
    expect(item.gates.map((gate) => [gate.name, gate.on, gate.provider, gate.on_block])).toEqual([
      ['toxicity_in', 'every_user_message', 'guardrails_ai', 'escalate_human'],
      ['toxicity_out', 'every_agent_response', 'guardrails_ai', 'suppress_and_escalate'],
      ['pii_out', 'every_agent_response', 'guardrails_ai', 'suppress_and_rephrase'],
      ['jailbreak_in', 'every_user_message', 'guardrails_ai', 'polite_redirect'],
      ['identity_verified', 'every_user_message', 'script', 'retry_verification'],
    ]);
    expect(item.gates[4]).toMatchObject({ type: 'custom_check', config: { script: 'guards/verify_customer.py', args_from_env: ['CUSTOMER_NAME', 'CUSTOMER_DOB'] } });
    expect(item.gates[4]!.check_expect?.equals).toBe('verified');
    expect(item.access_levels.verified).toEqual({
      description: 'Customer-specific data',
      tools: ['faq_search', 'product_info', 'policy_lookup', 'claim_status'],
      requires: ['identity_verified'],
      expires_after: 900,
    });
    expect(item.escalation.escalate_human).toMatchObject({ action: 'transfer_to_queue', queue: 'support_l2' });
    expect(item.escalation.suppress_and_rephrase).toMatchObject({ max_retries: 2, fallback: 'escalate_human' });
    expect(item.body.startsWith('# Insurance Support Bot')).toBe(true);
  });

  it('§13.3: numeric-range gates after steps and a string expectation', () => {
    const item = parsePlan(fixture('spec-13-3-trading-bot.md'));
    expect(item.gates[1]).toMatchObject({ name: 'position_size', on: 'after_step', after_step: 2, extract: 'position_usd', block: { outside: [0, 100] } });
    expect(item.gates[0]!.auto_approve).toEqual({ min: 0.75, max: 1 });
    expect(item.verify[0]!.expect.equals).toBe('filled');
    expect(item.budget).toMatchObject({ max_tokens: 100_000, max_cost_usd: 1.5, max_wall_time_seconds: 600 });
  });

  it('§13.4: a cron goal with a network check, output_lt and a failure_context template', () => {
    const item = parsePlan(fixture('spec-13-4-health-monitor.md'));
    expect(item).toMatchObject({ type: 'goal', agent: 'ephemeral', schedule: '*/30 * * * *', on_failure: 'spawn_task' });
    expect(item.verify.map((check) => check.network)).toEqual([true, false, false]);
    expect(item.verify[2]!.expect.output_lt).toBe(3600);
    expect(item.failure_context).toContain('Failed checks:\n$failed_checks\n');
  });

  it('§13.5: a project with ordered child tasks', () => {
    const item = parsePlan(fixture('spec-13-5-deploy-project.md'));
    expect(item.tasks).toEqual(['task-run-tests', 'task-build-image', 'task-deploy-staging', 'task-smoke-test', 'task-deploy-prod']);
    expect(item.agent).toBe('ephemeral');
  });

  it('round-trips every fixture through JSON and WorkItem.parse unchanged (as the store does)', () => {
    for (const name of readdirSync(fixturesDir).filter((entry) => entry.endsWith('.md'))) {
      const item = parsePlan(fixture(name));
      expect(WorkItem.parse(JSON.parse(JSON.stringify(item))), name).toEqual(item);
    }
  });

  it('§7.2: the planner format with skills', () => {
    expect(parsePlan(fixture('spec-7-2-planner-format.md')).skills).toEqual(['coding']);
  });
});

describe('front matter and body', () => {
  it('takes the body after the closing delimiter, without leading blank lines or trailing whitespace', () => {
    expect(parsePlan('---\nid: t\ntype: task\ntitle: T\n---\n\n\n  # Heading\n\ntext  \n\n\n').body).toBe('  # Heading\n\ntext');
    expect(parsePlan('---\nid: t\ntype: task\ntitle: T\n---').body).toBe('');
  });

  it('accepts CRLF line endings and a byte-order mark, with the same result as LF', () => {
    const lf = parsePlan(plan('skills: [coding]'), { now: () => new Date(0) });
    const crlf = parsePlan('\uFEFF' + plan('skills: [coding]').replace(/\n/g, '\r\n'), { now: () => new Date(0) });
    expect(crlf).toEqual(lf);
  });

  it('keeps a later "---" line in the body', () => {
    expect(parsePlan(plan() + '\n\n---\n\nmore').body).toBe('Body.\n\n---\n\nmore');
  });

  it('reads YAML 1.2: on/yes/no stay strings, dates stay strings', () => {
    const item = parsePlan(plan('gates:', '  - name: g', '    on: on_tool_call', '    allowed_values: [yes, no, 2026-01-01]'));
    expect(item.gates[0]!.on).toBe('on_tool_call');
    expect(item.gates[0]!.allowed_values).toEqual(['yes', 'no', '2026-01-01']);
  });

  it('splits front matter without interpreting it', () => {
    expect(splitFrontMatter('---\na: 1\n---\nbody')).toEqual({ yaml: 'a: 1', body: 'body' });
  });

  it('sets created_at from the given clock, and leaves it out of the plan', () => {
    expect(parsePlan(plan(), { now: () => new Date('2026-02-03T04:05:06Z') }).created_at).toBe('2026-02-03T04:05:06.000Z');
  });
});

describe('defaults and linkage', () => {
  it('defaults interaction_mode and parses each mode', () => {
    expect(parsePlan(plan()).interaction_mode).toBe('confirm_only_when_required');
    for (const mode of ['default_and_offer', 'act_and_report', 'confirm_only_when_required']) {
      expect(parsePlan(plan(`interaction_mode: ${mode}`)).interaction_mode).toBe(mode);
    }
    expect(refusal(plan('interaction_mode: yolo')).message).toBe(
      'plan.md:5: interaction_mode: expected one of: default_and_offer, act_and_report, confirm_only_when_required',
    );
  });

  it('parses follow-up linkage', () => {
    const item = parsePlan(plan('follow_up_of: task-prev', 'input_artifacts_from: ["*"]'));
    expect(item).toMatchObject({ follow_up_of: 'task-prev', input_artifacts_from: ['*'] });
  });

  describe('skills', () => {
    const parent = { id: 'goal-parent', skills: ['coding', 'git'] };

    it('inherits the parent skills when the plan has none, and records the parent', () => {
      expect(parsePlan(plan(), { parent })).toMatchObject({ skills: ['coding', 'git'], parent: 'goal-parent' });
    });

    it('is empty without a parent', () => {
      expect(parsePlan(plan()).skills).toEqual([]);
    });

    it('lets an explicit list, even an empty one, override the parent', () => {
      expect(parsePlan(plan('skills: [docs]'), { parent }).skills).toEqual(['docs']);
      expect(parsePlan(plan('skills: []'), { parent }).skills).toEqual([]);
    });

    it('does not share the parent array', () => {
      const item = parsePlan(plan(), { parent });
      item.skills.push('extra');
      expect(parent.skills).toEqual(['coding', 'git']);
    });

    it('refuses a plan naming a different parent than the one it is parsed under', () => {
      const result = tryParsePlan(plan('parent: goal-other'), { parent });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toBe('plan.md:5: parent: plan names parent "goal-other" but is being added under "goal-parent"');
      expect(parsePlan(plan('parent: goal-parent'), { parent }).parent).toBe('goal-parent');
    });
  });
});

describe('refusals name the file, the line and the field', () => {
  it('a budget of zero', () => {
    const error = refusal(plan('budget:', '  max_cost_usd: 1.0', '  max_tokens: 0'), 'fix.md');
    expect(error.message).toBe('fix.md:7: budget.max_tokens: expected a positive integer');
    expect(error).toBeInstanceOf(PlanParseError);
    expect(isSilasError(error) && error.code).toBe(PLAN_INVALID);
    expect([error.file, error.line, error.field, error.detail]).toEqual(['fix.md', 7, 'budget.max_tokens', 'expected a positive integer']);
  });

  it('a budget of zero in a flow mapping, as the spec examples write budgets', () => {
    expect(refusal(plan('budget: { max_tokens: 200000, max_wall_time_seconds: 0 }')).message).toBe('plan.md:5: budget.max_wall_time_seconds: expected a positive integer');
  });

  it('unknown fields, at top level and nested', () => {
    expect(refusal(plan('titel: B')).message).toMatch(/^plan\.md:5: titel: unknown field; check the spelling; known fields: id, type, title, /);
    expect(refusal(plan('verify:', '  - name: t', '    run: ls', '    expect: { exit_code: 0 }', '    retry: 3')).message).toBe('plan.md:9: verify[0].retry: unknown field; check the spelling');
  });

  it('two predicates in one expectation', () => {
    expect(refusal(plan('verify:', '  - name: t', '    run: ls', '    expect: { exit_code: 0, contains: ok }')).message).toBe(
      'plan.md:8: verify[0].expect: exactly one predicate is allowed, 2 given (exit_code, contains); split them into separate checks',
    );
  });

  it('a file_exists path outside the work directory', () => {
    expect(refusal(plan('verify:', '  - name: t', '    run: ls', '    expect:', '      file_exists: ../../home/me/.ssh/id_ed25519')).message).toBe(
      'plan.md:9: verify[0].expect.file_exists: paths containing ".." are not allowed; name a file inside the work directory',
    );
  });

  it('a task on the stream lane, and a missing required field', () => {
    expect(refusal(plan('agent: stream')).message).toBe('plan.md:5: agent: a task must use agent: ephemeral (only goals may configure the stream lane)');
    expect(refusal('---\ntype: task\ntitle: A\n---\n').message).toBe('plan.md:2: id: required field is missing');
  });

  it('duplicate keys', () => {
    const error = refusal(plan('title: B'));
    expect(error.message).toBe('plan.md:5: title: this key is given twice; keep one');
    expect(refusal(plan('budget:', '  max_tokens: 5', '  max_tokens: 6')).message).toBe('plan.md:7: budget.max_tokens: this key is given twice; keep one');
  });

  it('runtime-managed fields and a body in the front matter', () => {
    const error = refusal(plan('status: done', 'approval_token: { token_id: forged }', 'created_at: "2020-01-01T00:00:00Z"', 'body: sneaky'));
    expect(error.issues.map((issue) => `${issue.line} ${issue.field}`)).toEqual(['5 status', '6 approval_token', '7 created_at', '8 body']);
    expect(error.issues[1]!.message).toBe('approval_token is managed by the runtime and cannot be set in a plan; remove it');
    expect(error.issues[3]!.message).toMatch(/the body is the markdown after the closing "---"/);
  });

  it('missing, unclosed, empty and non-mapping front matter', () => {
    expect(refusal('# Just a heading\n').message).toMatch(/^plan\.md:1: \(front matter\): a plan starts with YAML front matter/);
    expect(refusal('').message).toMatch(/^plan\.md:1: \(front matter\): a plan starts with YAML front matter/);
    expect(refusal('---\nid: a\n').message).toBe('plan.md:1: (front matter): front matter is not closed; add a line "---" after the last field');
    expect(refusal('---\n---\nbody').message).toBe('plan.md:1: (front matter): front matter is empty; it needs at least id, type and title');
    expect(refusal('---\n- id: a\n---\n').message).toBe('plan.md:2: (front matter): front matter must be a mapping of fields (key: value), found a list');
    expect(refusal('---\njust text\n---\n').message).toBe('plan.md:2: (front matter): front matter must be a mapping of fields (key: value), found a single value');
  });

  it('YAML syntax errors and custom tags', () => {
    expect(refusal(plan('skills: [coding')).message).toMatch(/^plan\.md:5: .*: invalid YAML: /);
    expect(refusal(plan('title2: !!python/object:os.system ls')).message).toMatch(/^plan\.md:5: title2: Unresolved tag.*no custom tags/);
  });

  it('alias expansion beyond a small limit', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 30 }, (_, i) => `b${i}: *a`)].join('\n');
    const error = refusal(`---\n${bomb}\n---\n`);
    expect(error.message).toMatch(/^plan\.md:2: \(front matter\): YAML could not be resolved: /);
  });

  it('oversized input, before parsing', () => {
    const big = plan() + '\n' + 'x'.repeat(MAX_PLAN_BYTES);
    expect(refusal(big).message).toMatch(/^plan\.md:1: \(plan\): plan is \d+ bytes; the limit is 262144 bytes \(256 KiB\)$/);
    // Counted in UTF-8 bytes, not characters.
    const multibyte = plan() + '\n' + 'é'.repeat(MAX_PLAN_BYTES / 2);
    expect(refusal(multibyte).field).toBe('(plan)');
  });

  it('NUL characters', () => {
    expect(refusal(plan() + '\n\0').message).toBe('plan.md:7: (plan): plans are text; remove the NUL character');
  });

  it('lists every problem, ordered by line, and parsePlan throws the same error', () => {
    const markdown = plan('verify:', '  - name: t', '    run: ls', '    expect: {}', 'budget: { max_attempts: 0 }', 'on_failure: 1');
    const error = refusal(markdown);
    expect(error.issues.map((issue) => issue.line)).toEqual([8, 9, 10]);
    expect(error.message.split('\n')).toHaveLength(3);
    expect(() => parsePlan(markdown)).toThrow(error.message);
  });
});
