import { riskLabel, type Risk } from '../../../store/approval-queue.js';

/** The risk ladder's visual indicator (spec 002 §0.5.2): words first, colour second. */
export function RiskBadge({ risk }: { risk: Risk }) {
  return <span className={`risk-badge risk-badge--${risk}`}>{riskLabel(risk)}</span>;
}
