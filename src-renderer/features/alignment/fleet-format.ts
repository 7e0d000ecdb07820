import type { AlignmentFleet } from '../../store/alignment-state.js';

/** The matrix is symmetric: a pair is the same whichever agent comes first. */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

/** The conflicting values of each pair of agents that has any. */
export function conflictIndex(conflicts: AlignmentFleet['conflicts']): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const conflict of conflicts) out.set(pairKey(conflict.agentA, conflict.agentB), conflict.values);
  return out;
}

/** A heatmap cell's band: AAP §6 calls a pair compatible from 0.70. */
export function coherenceLevel(score: number): 'high' | 'mid' | 'low' {
  if (score >= 0.7) return 'high';
  if (score >= 0.4) return 'mid';
  return 'low';
}
