import { describe, expect, it } from 'vitest';
import { hop, hopsOf } from '../../testing/ilp-fixtures.js';
import { buildGraph, edgeLabel, graphSummary, hopNodeId, LAYOUT } from './graph-data.js';

describe('the composition graph\'s data', () => {
  it('has a node per hop with what the person reads on it, and a node per slice each agent loaded', () => {
    const { nodes } = buildGraph(hopsOf());
    expect(nodes.filter((n) => n.type === 'hop').map((n) => n.data)).toEqual([
      expect.objectContaining({ agent: 'meta-agent', kind: 'meta-agent', domain: 'meta', depth: 0, costUsd: 0.002, confidence: 0.89, status: 200, tone: 'ok' }),
      expect.objectContaining({ agent: 'financial', kind: 'specialist', domain: 'finance', depth: 1, confidence: 0.82 }),
      expect.objectContaining({ agent: 'biology', kind: 'specialist', domain: 'biology', depth: 1 }),
    ]);
    expect(nodes.filter((n) => n.type === 'slice').map((n) => n.data.slice)).toEqual(['meta-agent/decomposition', 'finance/budgeting.md', 'finance/buffers.md', 'biology/homeostasis.md']);
  });

  it('links each parent hop to its child, labelled with the status and, when the enforcer named one, the principle and severity', () => {
    const hops = [...hopsOf(), hop('h-deep', { parent: 'h-finance', agent: 'financial', depth: 2, status: 429, principle: 'recursion_budget', severity: 'error', slices: [] })];
    const calls = buildGraph(hops).edges.filter((e) => e.kind === 'call');
    expect(calls).toEqual([
      { id: 'calls:h-meta:h-finance', source: hopNodeId('h-meta'), target: hopNodeId('h-finance'), label: '200', kind: 'call', tone: 'ok' },
      { id: 'calls:h-meta:h-biology', source: hopNodeId('h-meta'), target: hopNodeId('h-biology'), label: '200', kind: 'call', tone: 'ok' },
      { id: 'calls:h-finance:h-deep', source: hopNodeId('h-finance'), target: hopNodeId('h-deep'), label: '429 recursion_budget · error', kind: 'call', tone: 'bad' },
    ]);
    expect(edgeLabel({ status: 207, principle: 'reasoning_transparency', severity: 'warning' })).toBe('207 reasoning_transparency · warning');
    expect(edgeLabel({ status: 403, principle: 'epistemic_honesty', severity: null })).toBe('403 epistemic_honesty');
  });

  it('links each hop to the slices it loaded, and leaves a hop whose parent is not held unattached', () => {
    const { edges } = buildGraph([hop('orphan', { parent: 'gone', slices: ['a.md', 'a.md'] })]);
    expect(edges).toEqual([{ id: 'loads:orphan:a.md', source: hopNodeId('orphan'), target: 'slice:orphan:a.md', label: null, kind: 'slice', tone: 'ok' }]);
  });

  it('lays hops out by depth, siblings side by side, each as wide as its slices, without overlap', () => {
    const { nodes } = buildGraph(hopsOf());
    const at = (id: string) => nodes.find((n) => n.id === id)!.position;
    expect(at(hopNodeId('h-meta')).y).toBe(0);
    expect(at(hopNodeId('h-finance')).y).toBe(LAYOUT.rowHeight);
    expect(at(hopNodeId('h-biology')).y).toBe(LAYOUT.rowHeight);
    expect(at(hopNodeId('h-biology')).x).toBeGreaterThan(at(hopNodeId('h-finance')).x + LAYOUT.hopWidth);
    const financeSlices = nodes.filter((n) => n.id.startsWith('slice:h-finance:')).map((n) => n.position);
    expect(financeSlices.map((p) => p.y)).toEqual([LAYOUT.rowHeight + LAYOUT.sliceDrop, LAYOUT.rowHeight + LAYOUT.sliceDrop]);
    expect(financeSlices[1]!.x - financeSlices[0]!.x).toBe(LAYOUT.sliceWidth + LAYOUT.gap);
    const biologySlice = nodes.find((n) => n.id.startsWith('slice:h-biology:'))!.position;
    expect(biologySlice.x).toBeGreaterThanOrEqual(financeSlices[1]!.x + LAYOUT.sliceWidth);
  });

  it('says the graph in words, naming the hops that were refused', () => {
    expect(graphSummary(hopsOf())).toBe('3 hops · 4 slices · depth 1');
    const refused = [...hopsOf(), hop('h-deep', { agent: 'systems', depth: 2, status: 429, principle: 'recursion_budget', severity: 'fatal', slices: [] })];
    expect(graphSummary(refused)).toBe('4 hops · 4 slices · depth 2 · 1 refused or failed (systems: 429 Budget Exceeded)');
  });
});
