import type { MouseEvent } from 'react';
import { useCockpit, useCockpitActions } from '../../app/cockpit-context.js';
import { ROUTES, routeHash, type Route } from '../../lib/routes.js';

/** Opening a page in a new tab or window must keep working, so only plain clicks are taken over. */
function isPlainClick(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;
}

export function NavBar() {
  const route = useCockpit((s) => s.navigation.route);
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
            <a href={routeHash(id)} aria-current={route === id ? 'page' : undefined} onClick={follow(id)}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
