import type { CardOrigin as Origin } from '../../../../src-shared/schemas/review.js';
import { channelLabel, taintLabel } from '../review-format.js';

/**
 * Who asked, on every card (docs/review.md "Sources"): the requester as the runtime knows it,
 * the channel it came through and the taint of its text, so a plan from a local-socket
 * conversation is never mistaken for one from the person's own cockpit.
 */
export function CardOrigin({ origin }: { origin: Origin }) {
  return (
    <span className={`card-origin card-origin--${origin.taint}`}>
      <span className="card-origin__requester">{origin.requester}</span>
      {' · '}
      <span className="card-origin__channel">via {channelLabel(origin.channel)}</span>
      {' · '}
      <span className="card-origin__taint">{taintLabel(origin.taint)}</span>
    </span>
  );
}
