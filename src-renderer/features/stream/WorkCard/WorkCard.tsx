import { useId, type MouseEvent } from 'react';
import { useCockpitActions } from '../../../app/cockpit-context.js';
import { isPlainClick } from '../../../lib/plain-click.js';
import { routeHash } from '../../../lib/routes.js';
import type { StreamWork } from '../../../store/stream-reducer.js';
import { EXECUTOR_DETAIL_NOTE, shortHash, workStatusLabel, workStatusTone } from '../stream-format.js';

/**
 * One piece of work Silas planned in this conversation, as its latest progress reports it. A
 * plan waiting for the person is signed in Review, never here: the card only leads there.
 */
export function WorkCard({ item }: { item: StreamWork }) {
  const titleId = useId();
  const { navigate } = useCockpitActions();
  const openReview = (event: MouseEvent<HTMLAnchorElement>) => {
    if (!isPlainClick(event)) return;
    event.preventDefault();
    navigate('review');
  };
  return (
    <article className={`work-card work-card--${workStatusTone(item.status)}`} aria-labelledby={titleId}>
      <header className="work-card__header">
        <h3 id={titleId} className="work-card__title">
          {item.title}
        </h3>
        <span className={`work-status work-status--${workStatusTone(item.status)}`}>{workStatusLabel(item.status)}</span>
      </header>
      {item.detail !== '' ? (
        <p className="work-card__detail">
          {item.detail}
          {item.detail_taint === 'external' ? <span className="work-card__taint"> ({EXECUTOR_DETAIL_NOTE})</span> : null}
        </p>
      ) : null}
      {item.plan_hash !== null ? (
        <p className="work-card__hash">
          Plan <code>{shortHash(item.plan_hash)}</code>
        </p>
      ) : null}
      {item.status === 'awaiting_approval' ? (
        <a className="button button--primary work-card__review" href={routeHash('review')} onClick={openReview}>
          Open in Review
        </a>
      ) : null}
    </article>
  );
}
