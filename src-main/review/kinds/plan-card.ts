import type { Expectation, WorkItem } from '../../../src-shared/silas/work.js';
import { isElevated, orderActions } from '../../../src-shared/review/cta.js';
import type { RiskLevel } from '../../../src-shared/schemas/review.js';
import { planHash } from '../../silas/work/hashes.js';

/*
 * The approval card of one plan (spec 002 §0.5.3), in words: the same card on the terminal
 * (`silas plan check`, `silas run --approve-here`) and in the cockpit's Review.
 */

export type { RiskLevel } from '../../../src-shared/schemas/review.js';

interface PlanCardAction {
  consequence_label: string;
  verdict: 'approved' | 'edit_requested' | 'declined';
  /** CTA order of §0.5.3: the recommended action first, alternatives, the decline last. */
  emphasis: 'recommended' | 'alternative' | 'decline';
}

export interface PlanCard {
  intent: string;
  risk_level: RiskLevel;
  risk_reasons: string[];
  rationale: string;
  /** What approving does, in one or two sentences. */
  approving: string;
  actions: PlanCardAction[];
  affected_items: { count: number; summary: string } | null;
  plan_hash: string;
  /** The first 8 characters of the plan hash, typed by the person to confirm this exact plan. */
  confirm_code: string;
  /** §0.5.3: expanded by default for high and irreversible risk. */
  details_expanded: boolean;
  details: {
    verify: Array<{ name: string; run: string; expect: string; timeout: number; network: boolean }>;
    budget: WorkItem['budget'];
    gates: Array<{ name: string; on: string; provider: string }>;
    skills: string[];
    access_levels: string[];
    agent: WorkItem['agent'];
    schedule: string | null;
    interaction_mode: WorkItem['interaction_mode'];
    tasks: string[];
    depends_on: string[];
    parent: string | null;
  };
}

export function describeExpectation(expect: Expectation): string {
  if (expect.exit_code !== null) return `exit code ${expect.exit_code}`;
  if (expect.equals !== null) return `output equals ${JSON.stringify(expect.equals)}`;
  if (expect.contains !== null) return `output contains ${JSON.stringify(expect.contains)}`;
  if (expect.regex !== null) return `output matches /${expect.regex}/`;
  if (expect.output_lt !== null) return `output < ${expect.output_lt}`;
  if (expect.output_gt !== null) return `output > ${expect.output_gt}`;
  if (expect.file_exists !== null) return `file exists: ${expect.file_exists}`;
  return 'output not empty';
}

/**
 * §0.5.2: the harness, not the agent, assigns risk, from the plan's structure only. Executing a
 * sandboxed plan is `medium`; a plan that acts outside one run is `high`. `irreversible` is never
 * inferred: reversibility cannot be read from a plan's structure.
 */
export function planRisk(item: WorkItem): { level: RiskLevel; reasons: string[] } {
  const reasons: string[] = [];
  if (item.agent === 'stream') reasons.push('configures the live Stream: it applies to every conversation while active');
  else if (item.type === 'goal') reasons.push(`recurring goal${item.schedule ? ` (${item.schedule})` : ''} under a standing approval`);
  if (Object.keys(item.access_levels).length > 0) reasons.push('grants tool access levels to the people it talks to');
  const level: RiskLevel = reasons.length > 0 ? 'high' : 'medium';
  if (level === 'medium') reasons.push(`an agent runs commands in a sandbox with the network denied${item.type === 'project' ? ', task by task' : ''}`);
  const networked = item.verify.filter((check) => check.network).length;
  if (networked > 0) reasons.push(`${networked} verify check${networked === 1 ? '' : 's'} use${networked === 1 ? 's' : ''} the network`);
  return { level, reasons };
}

/** The first one or two sentences of the briefing's first paragraph that is not a heading. */
export function planRationale(body: string): string {
  const paragraph = body
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').filter((line) => !/^\s*#/.test(line)).join(' ').replace(/\s+/g, ' ').trim())
    .find((block) => block.length > 0);
  if (!paragraph) return 'The plan gives no briefing; read it before approving.';
  const text = paragraph.split(/(?<=[.!?])\s+/).slice(0, 2).join(' ');
  return text.length > 280 ? `${text.slice(0, 279)}…` : text;
}

export function planApprovalCard(item: WorkItem, hash: string = planHash(item)): PlanCard {
  const code = hash.slice(0, 8);
  const checks = item.verify.length;
  const checkText = checks === 0 ? 'there are no verify checks, so one successful run counts as done' : `only the ${checks} verify check${checks === 1 ? '' : 's'} below can mark it done`;
  let intent: string;
  let approve: string;
  let approving: string;
  if (item.agent === 'stream') {
    intent = `Put goal "${item.title}" live on the Stream`;
    approve = 'Approve + go live';
    approving = `Signs an approval bound to plan ${code} that loads this configuration into the live Stream: its ${item.gates.length} gate(s) and ${Object.keys(item.access_levels).length} access level(s) apply to every conversation.`;
  } else if (item.type === 'goal') {
    intent = `Start recurring goal "${item.title}"${item.schedule ? ` (${item.schedule})` : ''}`;
    approve = 'Approve + start schedule';
    const onFailure = item.on_failure === 'spawn_task' ? 'a failure spawns a fix task, each verified against the standing approval and this goal\'s spawn policy' : `a failure triggers ${item.on_failure}`;
    approving = `Signs a standing approval bound to plan ${code}: the ${checks} check(s) run on schedule; ${onFailure}.`;
  } else if (item.type === 'project') {
    intent = `Run project "${item.title}" (${item.tasks.length} tasks)`;
    approve = `Approve + run ${item.tasks.length} tasks`;
    const projectChecks = checks === 0 ? 'with no project checks, it is done when every task is done' : `after the last task, only the ${checks} project check${checks === 1 ? '' : 's'} below can mark it done`;
    approving = `Signs a single-use approval bound to plan ${code}: the tasks run in dependency order, each sandboxed with the network denied; ${projectChecks}.`;
  } else {
    intent = `Run task "${item.title}"`;
    approve = 'Approve + execute';
    approving = `Signs a single-use approval bound to plan ${code}: an agent works through the briefing in a sandbox with the network denied, within the budget; ${checkText}.`;
  }
  const risk = planRisk(item);
  return {
    intent,
    risk_level: risk.level,
    risk_reasons: risk.reasons,
    rationale: planRationale(item.body),
    approving,
    // The cockpit's CTA rule (src-shared/review/cta.ts), so the terminal recommends what Review recommends.
    actions: orderActions(
      risk.level,
      [
        { choice: 'approved', label: approve, consequence: approving },
        { choice: 'edit_requested', label: 'Request edits', consequence: 'Nothing runs; the plan goes back for changes' },
      ],
      { choice: 'declined', label: 'Decline', consequence: 'Nothing runs' },
    ).map((a) => ({ consequence_label: a.label, verdict: a.choice as PlanCardAction['verdict'], emphasis: a.role })),
    affected_items: item.type === 'project' ? { count: item.tasks.length, summary: item.tasks.join(', ') } : null,
    plan_hash: hash,
    confirm_code: code,
    details_expanded: isElevated(risk.level),
    details: {
      verify: item.verify.map((check) => ({ name: check.name, run: check.run, expect: describeExpectation(check.expect), timeout: check.timeout, network: check.network })),
      budget: item.budget,
      gates: item.gates.map((gate) => ({ name: gate.name, on: gate.on, provider: gate.provider })),
      skills: [...item.skills],
      access_levels: Object.keys(item.access_levels),
      agent: item.agent,
      schedule: item.schedule,
      interaction_mode: item.interaction_mode,
      tasks: [...item.tasks],
      depends_on: [...item.depends_on],
      parent: item.parent,
    },
  };
}

/** The card as terminal text; every plan-supplied string is made terminal-safe. */
