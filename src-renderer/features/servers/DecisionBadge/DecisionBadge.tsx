import { decisionLabel, decisionTone } from '../servers-format.js';

/** A recorded decision in words first, colour second. */
export function DecisionBadge({ decision }: { decision: string }) {
  return <span className={`decision-badge decision-badge--${decisionTone(decision)}`}>{decisionLabel(decision)}</span>;
}
