import type { CardOf } from '../../../src-shared/schemas/review.js';
import { plural } from './review-format.js';

/* Pure text for a plan card's details (spec 002 §5.11), tested on its own like review-format. */

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
export function budgetSummary(budget: CardOf<'plan'>['details']['budget']): string {
  return `at most ${formatUsd(budget.max_cost_usd)}, ${plural(budget.max_tokens, 'token')}, ${formatDuration(budget.max_wall_time_seconds)} and ${plural(budget.max_attempts, 'attempt')}`;
}

/** The gates line: "No gates", "1 gate", "3 gates". */
export function gatesText(gates: number): string {
  return gates === 0 ? 'No gates' : plural(gates, 'gate');
}
