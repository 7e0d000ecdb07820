import type { Risk } from '../../../store/approval-queue.js';
import { RiskBadge } from '../RiskBadge/RiskBadge.js';

/** One waiting request as the stack shows it: a tool call or a plan, by its intent line. */
export interface UpNextItem {
  key: string;
  intent: string;
  risk: Risk;
}

/** The numbered "up next" stack (spec 002 §0.5.1): intent and risk only, nothing to act on. */
export function UpNext({ items }: { items: readonly UpNextItem[] }) {
  if (items.length === 0) return null;
  return (
    <section className="up-next" aria-labelledby="review-up-next">
      <h2 id="review-up-next">Up next</h2>
      <ol className="up-next__list" aria-labelledby="review-up-next">
        {items.map((item) => (
          <li key={item.key} className="up-next__item">
            <span className="up-next__intent">{item.intent}</span>
            <RiskBadge risk={item.risk} />
          </li>
        ))}
      </ol>
    </section>
  );
}
