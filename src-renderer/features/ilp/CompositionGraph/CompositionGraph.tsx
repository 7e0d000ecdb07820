import { lazy, Suspense, useId, useMemo } from 'react';
import type { IlpComposition } from '../../../store/ilp-state.js';
import { buildGraph, graphSummary } from '../graph-data.js';
import { agentKindText, confidenceText, statusText, statusTone, usdText } from '../ilp-format.js';

// React Flow arrives in its own chunk, when a composition is first inspected (flow-canvas.tsx).
const FlowCanvas = lazy(() => import('./flow-canvas.js').then((module) => ({ default: module.FlowCanvas })));

export interface CompositionGraphProps {
  hops: IlpComposition['hop_list'];
}

/**
 * The composition as a graph (docs/ilp.md "Inspector"): a node per hop (agent, domain, depth,
 * cost, confidence), a node per slice it loaded, each edge labelled with the enforcer's outcome.
 * The canvas cannot be read without sight, so the "Hops" list beside it says the same in words:
 * it is also what end-to-end tests find by role.
 */
export function CompositionGraph({ hops }: CompositionGraphProps) {
  const headingId = useId();
  const graph = useMemo(() => buildGraph(hops), [hops]);
  const summary = graphSummary(hops);
  const agentOf = new Map(hops.map((h) => [h.id, h.agent]));

  return (
    <section className="ilp-graph" aria-labelledby={headingId}>
      <h2 id={headingId}>Graph</h2>
      <figure className="ilp-graph__figure" aria-label="Composition graph">
        <div className="ilp-graph__canvas">
          <Suspense fallback={<p className="ilp-graph__loading">Drawing the graph…</p>}>
            <FlowCanvas graph={graph} />
          </Suspense>
        </div>
        <figcaption className="ilp-graph__summary">{summary}</figcaption>
      </figure>
      <ol className="ilp-hops" aria-label="Hops">
        {hops.map((hop) => {
          const parent = hop.parent === null ? null : (agentOf.get(hop.parent) ?? hop.parent);
          return (
            <li key={hop.id} className={`ilp-hop ilp-tone--${statusTone(hop.status, hop.severity)}`}>
              <strong>{hop.agent}</strong> ({agentKindText(hop.kind)}) · {hop.domain} · depth {hop.depth} · {usdText(hop.cost_usd)} · {confidenceText(hop.confidence)} ·{' '}
              {statusText(hop.status)}
              {hop.principle ? ` · ${hop.principle}${hop.severity ? ` (${hop.severity})` : ''}` : ''}
              {parent ? ` · asked by ${parent}` : ' · the query'}
              {hop.slices.length > 0 ? ` · slices: ${hop.slices.join(', ')}` : ' · no slices'}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
