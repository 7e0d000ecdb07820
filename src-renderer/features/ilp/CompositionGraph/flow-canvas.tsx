import { Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps, type NodeTypes } from '@xyflow/react';
import { useMemo } from 'react';
import type { GraphData, HopNodeData, SliceNodeData } from '../graph-data.js';
import { confidenceText, usdText } from '../ilp-format.js';

/*
 * The graph drawn with React Flow (@xyflow/react), in its own chunk: loaded when a composition is
 * first inspected, like uPlot on the Alignment page, so the cockpit's first load stays small. Its
 * stylesheet is bundled in styles/ilp.css (the cockpit's `style-src 'self'` refuses injected
 * <style> elements). The graph is for looking at: nothing is dragged, connected or selected, and
 * its nodes are not tab stops; the "Hops" list beside it says the same in words.
 */

type HopNode = Node<HopNodeData, 'hop'>;
type SliceNode = Node<SliceNodeData, 'slice'>;

function HopNodeView({ data }: NodeProps<HopNode>) {
  return (
    <div className={`ilp-node ilp-node--${data.tone}`}>
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <strong className="ilp-node__agent">{data.agent}</strong>
      <span className="ilp-node__kind">
        {data.kind} · {data.domain} · depth {data.depth}
      </span>
      <span className="ilp-node__numbers">
        {usdText(data.costUsd)} · {confidenceText(data.confidence)}
      </span>
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

function SliceNodeView({ data }: NodeProps<SliceNode>) {
  return (
    <div className="ilp-node ilp-node--slice">
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <code>{data.slice}</code>
    </div>
  );
}

// A module constant: React Flow warns, and remounts every node, when nodeTypes changes between renders.
const NODE_TYPES: NodeTypes = { hop: HopNodeView, slice: SliceNodeView };

export function FlowCanvas({ graph }: { graph: GraphData }) {
  const edges = useMemo<Edge[]>(
    () =>
      graph.edges.map((edge) => ({
        id: edge.id,
        source: edge.source,
        target: edge.target,
        className: `ilp-edge ilp-edge--${edge.kind} ilp-edge--${edge.tone}`,
        ...(edge.label === null ? {} : { label: edge.label, markerEnd: { type: MarkerType.ArrowClosed } }),
      })),
    [graph],
  );
  return (
    <ReactFlow
      nodes={graph.nodes}
      edges={edges}
      nodeTypes={NODE_TYPES}
      fitView
      nodesDraggable={false}
      nodesConnectable={false}
      nodesFocusable={false}
      edgesFocusable={false}
      elementsSelectable={false}
      minZoom={0.2}
    />
  );
}
