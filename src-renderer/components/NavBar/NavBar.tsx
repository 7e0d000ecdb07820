import type { MouseEvent } from 'react';
import { useCockpit, useCockpitActions } from '../../app/cockpit-context.js';
import { isPlainClick } from '../../lib/plain-click.js';
import { ROUTES, routeHash, type Route } from '../../lib/routes.js';
import { needsDensityCue } from '../../store/review-queue.js';

/**
 * The Review link carries the number of waiting decisions. Its accessible name still starts
 * with "Review" ("Review, 2 pending"), and is exactly "Review" when nothing waits.
 */
function ReviewCount({ count, dense }: { count: number; dense: boolean }) {
  if (count === 0) return null;
  return (
    <span className={`nav__count${dense ? ' nav__count--dense' : ''}`} aria-hidden="true">
      {count}
    </span>
  );
}

export function NavBar() {
  const route = useCockpit((s) => s.navigation.route);
  // Every kind of decision waits in the one Review queue, so the count is its length.
  const pending = useCockpit((s) => s.review.cards.length);
  const dense = useCockpit((s) => needsDensityCue(s.review.cards));
  const { navigate } = useCockpitActions();
  const follow = (target: Route) => (event: MouseEvent<HTMLAnchorElement>) => {
    if (!isPlainClick(event)) return;
    event.preventDefault();
    navigate(target);
  };
  return (
    <nav aria-label="Main" className="nav">
      <ul>
        {ROUTES.map(({ id, label }) => (
          <li key={id}>
            <a
              href={routeHash(id)}
              aria-current={route === id ? 'page' : undefined}
              aria-label={id === 'review' && pending > 0 ? `${label}, ${pending} pending` : undefined}
              onClick={follow(id)}
            >
              {label}
              {id === 'review' ? <ReviewCount count={pending} dense={dense} /> : null}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
