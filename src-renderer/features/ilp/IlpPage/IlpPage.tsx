import { CompositionDetail } from '../CompositionDetail/CompositionDetail.js';
import { CompositionList } from '../CompositionList/CompositionList.js';
import { LearnedSlices } from '../LearnedSlices/LearnedSlices.js';

/**
 * ILP (spec 004; docs/ilp.md "Inspector"): the compositions the meta-agent answered, and for the
 * one inspected, how it was composed — the hops as a graph, what weighed on the answer, the raw
 * messages — and a replay under other limits beside the original. Below, the slices knowledge
 * distillation learned from those compositions, proposed to Review and rolled back from here.
 */
export function IlpPage() {
  return (
    <section className="page page--ilp" aria-labelledby="page-ILP">
      <h1 id="page-ILP">ILP</h1>
      <p className="page__lead">
        The InsightLoop Protocol composes an answer from specialist agents under a constitution: limits on depth, budget and loops, honesty and domain
        boundaries, each checked on every hop. Inspect how a query was composed, and replay it under other limits.
      </p>
      <div className="ilp-layout">
        <CompositionList />
        <CompositionDetail />
      </div>
      <LearnedSlices />
    </section>
  );
}
