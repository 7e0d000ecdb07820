import type { CoherenceResult } from '../../src-shared/aap/results.js';
import { checkCoherence, type CoherenceOptions, type CoherenceParty } from './coherence.js';

/*
 * Coherence across a fleet of agents (the cockpit's coherence matrix): every pair through §6.4,
 * then who stands apart and who belongs together.
 *   outlier — an agent whose mean pairwise score lies more than one standard deviation (of the
 *             agents' means) below the fleet's mean; needs three agents to mean anything;
 *   cluster — agents connected through compatible pairs (connected components).
 */

export interface FleetMember {
  agent_id: string;
  card: CoherenceParty;
}

interface FleetPair {
  agent_a: string;
  agent_b: string;
  result: CoherenceResult;
}

interface FleetAgentSummary {
  agent_id: string;
  mean_score: number;
  compatible_count: number;
  conflict_count: number;
  cluster_id: number;
  is_outlier: boolean;
}

interface FleetOutlier {
  agent_id: string;
  mean_score: number;
  fleet_mean: number;
  /** Standard deviations below the fleet mean. */
  deviation: number;
  /** The values behind this agent's conflicts. */
  primary_conflicts: string[];
}

interface FleetCluster {
  cluster_id: number;
  agent_ids: string[];
  /** Mean pairwise score inside the cluster; 1 for an agent alone. */
  internal_coherence: number;
  /** Values every member declares. */
  shared_values: string[];
}

export interface FleetCoherence {
  agent_count: number;
  pair_count: number;
  fleet_score: number;
  min_pair_score: number;
  max_pair_score: number;
  /** `matrix[i][j]`: the score of agents i and j in input order; 1 on the diagonal. */
  matrix: number[][];
  pairs: FleetPair[];
  outliers: FleetOutlier[];
  clusters: FleetCluster[];
  agents: FleetAgentSummary[];
}

const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);

function components(count: number, linked: (a: number, b: number) => boolean): number[] {
  const parent = Array.from({ length: count }, (_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  for (let a = 0; a < count; a += 1) for (let b = a + 1; b < count; b += 1) if (linked(a, b)) parent[root(b)] = root(a);
  const ids = new Map<number, number>();
  return Array.from({ length: count }, (_, i) => {
    const r = root(i);
    if (!ids.has(r)) ids.set(r, ids.size);
    return ids.get(r)!;
  });
}

export function checkFleetCoherence(members: readonly FleetMember[], options: CoherenceOptions = {}): FleetCoherence {
  if (members.length < 2) throw new Error(`fleet coherence needs at least two agents, got ${members.length}`);
  const n = members.length;
  const matrix: number[][] = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
  const results: (CoherenceResult | null)[][] = Array.from({ length: n }, () => Array.from({ length: n }, () => null));
  const pairs: FleetPair[] = [];
  for (let i = 0; i < n; i += 1) {
    for (let j = i + 1; j < n; j += 1) {
      const result = checkCoherence(members[i]!.card, members[j]!.card, options);
      matrix[i]![j] = matrix[j]![i] = result.score;
      results[i]![j] = results[j]![i] = result;
      pairs.push({ agent_a: members[i]!.agent_id, agent_b: members[j]!.agent_id, result });
    }
  }
  const scores = pairs.map((p) => p.result.score);
  const fleetMean = mean(scores);
  const agentMeans = members.map((_, i) => mean(matrix[i]!.filter((_, j) => j !== i)));
  const spread = Math.sqrt(mean(agentMeans.map((m) => (m - mean(agentMeans)) ** 2)));
  const clusterOf = components(n, (a, b) => results[a]![b]!.compatible);
  const outliers: FleetOutlier[] = [];
  const agents: FleetAgentSummary[] = members.map((member, i) => {
    const others = results[i]!.filter((r, j) => j !== i && r !== null) as CoherenceResult[];
    const isOutlier = n >= 3 && spread > 0 && agentMeans[i]! < fleetMean - spread;
    if (isOutlier) {
      const values = new Set(others.flatMap((r) => r.value_alignment.conflicts.flatMap((c) => [c.initiator_value, c.responder_value])).map((v) => v.replace(/^conflicts_with:/, '')));
      outliers.push({ agent_id: member.agent_id, mean_score: agentMeans[i]!, fleet_mean: fleetMean, deviation: (fleetMean - agentMeans[i]!) / spread, primary_conflicts: [...values].sort() });
    }
    return {
      agent_id: member.agent_id,
      mean_score: agentMeans[i]!,
      compatible_count: others.filter((r) => r.compatible).length,
      conflict_count: others.filter((r) => r.value_alignment.conflicts.length > 0).length,
      cluster_id: clusterOf[i]!,
      is_outlier: isOutlier,
    };
  });
  const clusters: FleetCluster[] = [...new Set(clusterOf)].map((id) => {
    const inside = clusterOf.flatMap((c, i) => (c === id ? [i] : []));
    const innerScores = inside.flatMap((a, k) => inside.slice(k + 1).map((b) => matrix[a]![b]!));
    const declared = inside.map((i) => new Set(members[i]!.card.values.declared));
    const shared = [...declared[0]!].filter((value) => declared.every((set) => set.has(value)));
    return { cluster_id: id, agent_ids: inside.map((i) => members[i]!.agent_id), internal_coherence: innerScores.length === 0 ? 1 : mean(innerScores), shared_values: shared };
  });
  return { agent_count: n, pair_count: pairs.length, fleet_score: fleetMean, min_pair_score: Math.min(...scores), max_pair_score: Math.max(...scores), matrix, pairs, outliers, clusters, agents };
}
