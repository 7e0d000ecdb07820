import type { CardAction, RiskLevel } from '../schemas/review.js';

/** What a kind offers, before the runtime orders it: its button text and consequence label. */
export interface ActionText {
  choice: string;
  label: string;
  consequence: string;
}

const RISK_LABELS: Record<RiskLevel, string> = {
  low: 'Low risk',
  medium: 'Medium risk',
  high: 'High risk',
  irreversible: 'Irreversible',
};

/** The risk badge's words, e.g. "High risk" or "Irreversible" (§0.5.2); notifications start with them too. */
export function riskLabel(risk: RiskLevel): string {
  return RISK_LABELS[risk];
}

/** High and irreversible risk: the runtime recommends declining (§0.5.2). */
export function isElevated(risk: RiskLevel): boolean {
  return risk === 'high' || risk === 'irreversible';
}

/**
 * A card's buttons in CTA order (§0.5.3: recommended first, alternatives in the middle, the
 * destructive or declining action last), the same rule for every kind.
 *
 * Decision: for low and medium risk the first allowing action is recommended, the other
 * allowing actions are the middle alternatives and the decline comes last, de-emphasized. For
 * high and irreversible risk the decline is recommended and comes first; the allowing actions
 * follow in reverse (the primary one last), drawn in the danger colour so they stay easy to find
 * and cannot be mistaken for the safe choice. A "standing" alternative is never recommended.
 */
export function orderActions(risk: RiskLevel, allowing: readonly [ActionText, ...ActionText[]], decline: ActionText): CardAction[] {
  const [primary, ...others] = allowing;
  if (isElevated(risk)) {
    return [
      { ...decline, role: 'recommended', tone: 'recommended' },
      ...[...others, primary].map((action) => ({ ...action, role: 'alternative' as const, tone: 'danger' as const })),
    ];
  }
  return [
    { ...primary, role: 'recommended', tone: 'recommended' },
    ...others.map((action) => ({ ...action, role: 'alternative' as const, tone: 'secondary' as const })),
    { ...decline, role: 'decline', tone: 'secondary' },
  ];
}
