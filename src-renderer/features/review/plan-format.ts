import type { PendingPlanApproval } from '../../../src-shared/schemas/plan-approval.js';
import type { PlanDecision } from '../../lib/cockpit.js';
import { isElevated, type Risk } from '../../store/approval-queue.js';
import type { DecisionAction } from './review-format.js';
import { formatRemaining } from './review-format.js';

/* Pure text for plan approval cards (spec 002 §0.5.3, §5.11), tested on its own like review-format. */

/** The card's accessible name, e.g. "Plan approval: Fix the timezone bug". */
export function planCardName(card: Pick<PendingPlanApproval, 'title'>): string {
  return `Plan approval: ${card.title}`;
}

/** The card contract's one-line intent, with the work item's type: "Run plan: Fix the timezone bug (task)". */
export function planIntentLine(card: Pick<PendingPlanApproval, 'title' | 'type'>): string {
  return `Run plan: ${card.title} (${card.type})`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** A wall-time limit in words: "45 s", "30 min", "1 h 30 min", "2 h". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '0 s';
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const parts = [h > 0 ? `${h} h` : '', m > 0 ? `${m} min` : '', s > 0 ? `${s} s` : ''].filter(Boolean);
  return parts.join(' ');
}

/** A USD amount: two decimals, or the exact amount below one cent. */
export function formatUsd(amount: number): string {
  return amount >= 0.01 || amount === 0 ? `$${amount.toFixed(2)}` : `$${amount}`;
}

/** The budget on one line: "at most $2.00, 200,000 tokens, 30 min and 5 attempts". */
export function budgetSummary(budget: PendingPlanApproval['budget']): string {
  return `at most ${formatUsd(budget.max_cost_usd)}, ${plural(budget.max_tokens, 'token')}, ${formatDuration(budget.max_wall_time_seconds)} and ${plural(budget.max_attempts, 'attempt')}`;
}

/** The gates line: "No gates", "1 gate", "3 gates". */
export function gatesText(gates: number): string {
  return gates === 0 ? 'No gates' : plural(gates, 'gate');
}

/** The countdown sentence for a plan card at time `now` (ms since epoch). */
export function planCountdownText(expiresAt: string, now: number): string {
  const left = formatRemaining(Date.parse(expiresAt) - now);
  return left === 'expired' ? 'Expired — silas run gets a timeout and nothing runs' : `Expires in ${left}`;
}

export type PlanActionSpec = DecisionAction<PlanDecision>;

type PlanAction = Pick<PlanActionSpec, 'decision' | 'label' | 'consequence'>;

const APPROVE: PlanAction = {
  decision: 'approve',
  label: 'Approve and sign',
  consequence: 'Signs this exact plan with your owner key; it runs once in a sandbox and only its checks decide success',
};

const DENY: PlanAction = {
  decision: 'deny',
  label: 'Deny',
  consequence: 'Nothing runs',
};

/**
 * The plan card's buttons in CTA order (§0.5.3: recommended first, decline last), drawn like
 * the tool-call card's: for low and medium risk "Approve and sign" is recommended and "Deny"
 * comes last, de-emphasized; for high and critical risk "Deny" is recommended and comes first,
 * and "Approve and sign" moves last in the danger colour.
 */
export function planActionsFor(risk: Risk): PlanActionSpec[] {
  if (isElevated(risk)) return [{ ...DENY, tone: 'recommended' }, { ...APPROVE, tone: 'danger' }];
  return [{ ...APPROVE, tone: 'recommended' }, { ...DENY, tone: 'secondary' }];
}
