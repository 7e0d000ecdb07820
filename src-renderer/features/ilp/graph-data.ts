import type { IlpComposition } from '../../store/ilp-state.js';
import { agentKindText, statusText, statusTone } from './ilp-format.js';

/*
 * A composition as a graph (docs/ilp.md "Inspector"): one node per hop, a node per slice each
 * agent loaded, an edge from each parent hop to its child labelled with the enforcer's outcome on
 * that edge (spec 004 §4.2 steps 3–6, §8). Laid out by depth with no layout library: each depth is
 * a row, hops in the order the meta-agent made them, each as wide as its slices need, so nothing
 * overlaps. Pure data: jsdom cannot measure a layout, so this is what the tests read.
 */

type Hop = IlpComposition['hop_list'][number];

export const LAYOUT = { hopWidth: 210, sliceWidth: 150, gap: 24, rowHeight: 240, sliceDrop: 120 } as const;

export interface HopNodeData {
  [key: string]: unknown;
  hopId: string;
  agent: string;
  kind: string;
  domain: string;
  depth: number;
  costUsd: number;
  confidence: number | null;
  status: number;
  tone: 'ok' | 'warning' | 'bad';
}

export interface SliceNodeData {
  [key: string]: unknown;
  slice: string;
}

type GraphNode =
  | { id: string; type: 'hop'; position: { x: number; y: number }; data: HopNodeData }
  | { id: string; type: 'slice'; position: { x: number; y: number }; data: SliceNodeData };

interface GraphEdge {
  id: string;
  source: string;
  target: string;
  /** The status code, with the principle and severity when the enforcer named one; null for a slice edge. */
  label: string | null;
  kind: 'call' | 'slice';
  tone: 'ok' | 'warning' | 'bad';
}

export interface GraphData {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export const hopNodeId = (hopId: string) => `hop:${hopId}`;
const sliceNodeId = (hopId: string, slice: string) => `slice:${hopId}:${slice}`;

/** "429 recursion_budget · error", or just "200" when the edge passed. */
export function edgeLabel(hop: Pick<Hop, 'status' | 'principle' | 'severity'>): string {
  if (hop.principle === null) return String(hop.status);
  return `${hop.status} ${hop.principle}${hop.severity ? ` · ${hop.severity}` : ''}`;
}

export function buildGraph(hops: readonly Hop[]): GraphData {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const ids = new Set(hops.map((h) => h.id));
  const rowEnd = new Map<number, number>();
  const { hopWidth, sliceWidth, gap, rowHeight, sliceDrop } = LAYOUT;

  for (const hop of hops) {
    const slices = [...new Set(hop.slices)];
    const width = Math.max(hopWidth, slices.length * (sliceWidth + gap) - gap);
    const left = rowEnd.get(hop.depth) ?? 0;
    rowEnd.set(hop.depth, left + width + gap * 2);
    const y = hop.depth * rowHeight;
    const tone = statusTone(hop.status, hop.severity);
    nodes.push({
      id: hopNodeId(hop.id),
      type: 'hop',
      position: { x: left + (width - hopWidth) / 2, y },
      data: { hopId: hop.id, agent: hop.agent, kind: agentKindText(hop.kind), domain: hop.domain, depth: hop.depth, costUsd: hop.cost_usd, confidence: hop.confidence, status: hop.status, tone },
    });
    slices.forEach((slice, i) => {
      nodes.push({ id: sliceNodeId(hop.id, slice), type: 'slice', position: { x: left + i * (sliceWidth + gap), y: y + sliceDrop }, data: { slice } });
      edges.push({ id: `loads:${hop.id}:${slice}`, source: hopNodeId(hop.id), target: sliceNodeId(hop.id, slice), label: null, kind: 'slice', tone: 'ok' });
    });
    // A parent the view does not hold (a hop cut off by a limit) leaves the child unattached rather than pointing nowhere.
    if (hop.parent !== null && ids.has(hop.parent)) {
      edges.push({ id: `calls:${hop.parent}:${hop.id}`, source: hopNodeId(hop.parent), target: hopNodeId(hop.id), label: edgeLabel(hop), kind: 'call', tone });
    }
  }
  return { nodes, edges };
}

/** The graph in words, for its accessible name and caption. */
export function graphSummary(hops: readonly Hop[]): string {
  const slices = new Set(hops.flatMap((h) => h.slices)).size;
  const depth = hops.reduce((max, h) => Math.max(max, h.depth), 0);
  const refused = hops.filter((h) => statusTone(h.status, h.severity) === 'bad');
  const parts = [`${hops.length} ${hops.length === 1 ? 'hop' : 'hops'}`, `${slices} ${slices === 1 ? 'slice' : 'slices'}`, `depth ${depth}`];
  if (refused.length > 0) parts.push(`${refused.length} refused or failed (${refused.map((h) => `${h.agent}: ${statusText(h.status)}`).join(', ')})`);
  return parts.join(' · ');
}
