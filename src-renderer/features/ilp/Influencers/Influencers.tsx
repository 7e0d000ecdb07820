import { useId } from 'react';
import type { IlpComposition } from '../../../store/ilp-state.js';

export interface InfluencersProps {
  influencers: IlpComposition['influencers'];
}

/**
 * The attention influencers (spec 004 §6.4, §13.6): the concepts that weighed most on the answer,
 * heaviest first, each with the slice it came from, its weight as a bar and a number, and the
 * reason the tracker gave.
 */
export function Influencers({ influencers }: InfluencersProps) {
  const headingId = useId();
  const ranked = [...influencers].sort((a, b) => b.weight - a.weight);
  return (
    <section className="ilp-influencers" aria-labelledby={headingId}>
      <h2 id={headingId}>Influencers</h2>
      {ranked.length === 0 ? (
        <p className="ilp-empty-note">No attention was traced for this composition (its query did not ask for Attention-Enabled, or no agent answered).</p>
      ) : (
        <ol className="ilp-influencers__list" aria-label="Influencers">
          {ranked.map((influencer) => (
            <li key={`${influencer.slice}\u0000${influencer.concept}`} className="ilp-influencer">
              <span className="ilp-influencer__concept">{influencer.concept}</span>
              <span className="ilp-influencer__bar" aria-hidden="true">
                <span className="ilp-influencer__fill" style={{ width: `${Math.round(influencer.weight * 100)}%` }} />
              </span>
              <span className="ilp-influencer__weight">{influencer.weight.toFixed(2)}</span>
              <code className="ilp-influencer__slice">{influencer.slice}</code>
              <span className="ilp-influencer__why">{influencer.reasoning}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
