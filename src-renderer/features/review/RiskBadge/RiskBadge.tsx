import type { RiskLevel } from '../../../../src-shared/schemas/review.js';
import { riskLabel } from '../../../store/review-queue.js';

/** The risk ladder's visual indicator (spec 002 §0.5.2): words first, colour second. */
export function RiskBadge({ risk }: { risk: RiskLevel }) {
  return <span className={`risk-badge risk-badge--${risk}`}>{riskLabel(risk)}</span>;
}
