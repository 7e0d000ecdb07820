import type { PendingApproval } from '../../../src-shared/schemas/approval.js';
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

export type ApprovalChoice = 'allow_once' | 'deny';

export interface ActionSpec {
  decision: ApprovalChoice;
  label: string;
  /** The card contract's consequence label (§0.5.3), shown with the button. */
  consequence: string;
  /** Visually emphasized as the recommended action. */
  recommended: boolean;
}

const ALLOW: Omit<ActionSpec, 'recommended'> = {
  decision: 'allow_once',
  label: 'Allow once',
  consequence: 'Runs this call once; signed with your key',
};

const DENY: Omit<ActionSpec, 'recommended'> = {
  decision: 'deny',
  label: 'Deny',
  consequence: 'The agent receives an error (-32004)',
};

/**
 * The card's buttons in CTA order (§0.5.3: recommended first, destructive or decline last).
 *
 * Decision: for low and medium risk the policy merely asked, so "Allow once" is recommended
 * and "Deny" (the decline) comes last, de-emphasized. For high and critical risk the
 * recommended action is "Deny": it comes first and is emphasized, while "Allow once" — the
 * action that can do harm — moves last. It is de-emphasized in weight but drawn in the danger
 * colour, so it stays easy to find and cannot be mistaken for the safe choice.
 */
export function actionsFor(risk: Risk): ActionSpec[] {
  if (isElevated(risk)) return [{ ...DENY, recommended: true }, { ...ALLOW, recommended: false }];
  return [{ ...ALLOW, recommended: true }, { ...DENY, recommended: false }];
}

const RISK_ORDER: readonly Risk[] = ['critical', 'high', 'medium', 'low'];

/** A queue's make-up for the density cue, most severe first: "2 critical, 3 high, 1 medium". */
export function riskSummary(cards: readonly Pick<PendingApproval, 'risk'>[]): string {
  return RISK_ORDER.map((risk) => [risk, cards.filter((card) => card.risk === risk).length] as const)
    .filter(([, n]) => n > 0)
    .map(([risk, n]) => `${n} ${risk}`)
    .join(', ');
}
