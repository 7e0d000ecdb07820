import type { PendingApproval } from '../../../src-shared/schemas/approval.js';
import type { DecisionChoice } from '../../lib/cockpit.js';
import { isElevated, type Risk } from '../../store/approval-queue.js';

/* Pure text for the Review surface, kept apart from components so it is tested on its own. */

export { riskLabel } from '../../store/approval-queue.js';

/** The card's accessible name, e.g. "Approval request: write_file on filesystem". */
export function cardName(card: Pick<PendingApproval, 'tool' | 'server'>): string {
  return `Approval request: ${card.tool} on ${card.server}`;
}

/** The card contract's one-line intent (§0.5.3). */
export function intentLine(card: Pick<PendingApproval, 'tool' | 'server'>): string {
  return `${card.tool} on ${card.server} wants to run`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Time left until a request expires, rounded up to whole seconds so "0:00" is never shown
 * while the request can still be decided: `m:ss`, or `h:mm:ss` from an hour on; "expired" at 0.
 */
export function formatRemaining(msLeft: number): string {
  if (!Number.isFinite(msLeft) || msLeft <= 0) return 'expired';
  const total = Math.ceil(msLeft / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(seconds)}` : `${minutes}:${pad(seconds)}`;
}

/** The countdown sentence for a card at time `now` (ms since epoch). */
export function countdownText(expiresAt: string, now: number): string {
  const left = formatRemaining(Date.parse(expiresAt) - now);
  return left === 'expired' ? 'Expired — the agent gets a timeout' : `Expires in ${left}`;
}

/** Arguments as shown in Details: pretty JSON of the DLP-redacted copy the proxy sent. */
export function formatArgs(args: unknown): string {
  try {
    return JSON.stringify(args, null, 2) ?? 'null';
  } catch {
    return String(args);
  }
}

/** What the person can answer on a card: the `decision` of `approvals.decide`. */
export type ApprovalChoice = DecisionChoice;

/** How a button is drawn: emphasized, plain, or in the danger colour (an action that can do harm, not recommended). */
export type ActionTone = 'recommended' | 'secondary' | 'danger';

/** One button of a decision card (tool call or plan) and the consequence it is labelled with (§0.5.3). */
export interface DecisionAction<D extends string> {
  decision: D;
  label: string;
  /** The card contract's consequence label (§0.5.3), shown with the button. */
  consequence: string;
  tone: ActionTone;
}

export type ActionSpec = DecisionAction<ApprovalChoice>;

type Action = Pick<ActionSpec, 'decision' | 'label' | 'consequence'>;

const ALLOW: Action = {
  decision: 'allow_once',
  label: 'Allow once',
  consequence: 'Runs this call once; signed with your key',
};

const ALWAYS_ALLOW: Action = {
  decision: 'always_allow',
  label: 'Always allow',
  consequence: 'Runs this call now and every identical call (same tool, same arguments, this server) without asking, until you revoke it on the Policies page',
};

const DENY: Action = {
  decision: 'deny',
  label: 'Deny',
  consequence: 'The agent receives an error (-32004)',
};

const as = (action: Action, tone: ActionTone): ActionSpec => ({ ...action, tone });

/**
 * The card's buttons in CTA order (§0.5.3: recommended first, alternatives in the middle,
 * destructive or decline last).
 *
 * Decision: for low and medium risk the policy merely asked, so "Allow once" is recommended,
 * "Always allow" is the alternative in the middle and "Deny" (the decline) comes last,
 * de-emphasized. For high and critical risk the recommended action is "Deny": it comes first
 * and is emphasized; "Always allow" stays the middle alternative and "Allow once" moves last.
 * Both allowing actions are then drawn in the danger colour, so they stay easy to find and
 * cannot be mistaken for the safe choice. "Always allow" is never the recommended action.
 */
export function actionsFor(risk: Risk): ActionSpec[] {
  if (isElevated(risk)) return [as(DENY, 'recommended'), as(ALWAYS_ALLOW, 'danger'), as(ALLOW, 'danger')];
  return [as(ALLOW, 'recommended'), as(ALWAYS_ALLOW, 'secondary'), as(DENY, 'secondary')];
}

const RISK_ORDER: readonly Risk[] = ['critical', 'high', 'medium', 'low'];

/** A queue's make-up for the density cue, most severe first: "2 critical, 3 high, 1 medium". */
export function riskSummary(cards: readonly Pick<PendingApproval, 'risk'>[]): string {
  return RISK_ORDER.map((risk) => [risk, cards.filter((card) => card.risk === risk).length] as const)
    .filter(([, n]) => n > 0)
    .map(([risk, n]) => `${n} ${risk}`)
    .join(', ');
}
