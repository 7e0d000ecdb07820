import { ALLOCABLE_ZONES, type AllocableZone, type ContextItem } from '../../../src-shared/silas/context.js';
import type { ContextManager, EvictedItem } from './context-manager.js';
import { evictionOrder } from './eviction.js';

/**
 * The deterministic aggressive heuristic of spec 002 §5.7 Tier 2: what runs instead of the scorer
 * model when it is not set up, times out, fails, answers badly or its breaker is open, and what
 * finishes the job when the scorer's groups were not enough. "Oldest chronicle + lowest-relevance
 * memory + completed workspace", never a pinned or system-zone item, until total usage is no
 * longer above `eviction_threshold_pct`. Decisions: docs/silas/context.md "Eviction, Tier 2".
 */

/**
 * An item Tier 2 may take, by the scorer or by this heuristic: not in the system zone, not pinned,
 * and not a chronicle item of the current turn (the message being answered: evicting it would
 * leave the turn's answer without its question, and the scorer is shown it as a recent turn).
 */
function isTier2Candidate(item: ContextItem, turn: number): boolean {
  if (item.zone === 'system' || item.pinned) return false;
  return !(item.zone === 'chronicle' && item.turn_number >= turn);
}

/**
 * Per zone, the candidates in the order the heuristic gives them up: chronicle oldest first, memory
 * lowest relevance first, workspace only completed work (`execution_result`), oldest first. Active
 * plans and subscriptions are not "completed workspace" and stay.
 */
export function aggressiveQueues(context: Pick<ContextManager, 'getZone'>, scope: string, turn: number): Record<AllocableZone, ContextItem[]> {
  const queue = (zone: AllocableZone) => evictionOrder(zone, context.getZone(scope, zone).filter((item) => isTier2Candidate(item, turn)));
  return {
    chronicle: queue('chronicle'),
    memory: queue('memory'),
    workspace: queue('workspace').filter((item) => item.kind === 'execution_result'),
  };
}

type Fallback = Pick<ContextManager, 'getZone' | 'evict' | 'overThreshold' | 'tokenUsage' | 'budgets'>;

/**
 * Evicts by the aggressive heuristic until the scope is no longer above the threshold. The three
 * zones give up items together: each step takes the next candidate of the zone fullest relative to
 * its budget under the scope's profile (ties: chronicle, memory, workspace), so no zone is emptied
 * while another keeps all it had. Items in `spare` (blocks the scorer asked to keep) go only after
 * every other candidate.
 */
export function evictAggressively(context: Fallback, scope: string, turn: number, spare: ReadonlySet<string> = new Set()): EvictedItem[] {
  const evicted: EvictedItem[] = [];
  if (!context.overThreshold(scope)) return evicted;
  const queues = aggressiveQueues(context, scope, turn);
  const budgets = context.budgets(scope).zones;
  for (const pass of [false, true]) {
    const pending: Record<AllocableZone, ContextItem[]> = {
      chronicle: queues.chronicle.filter((item) => spare.has(item.ctx_id) === pass),
      memory: queues.memory.filter((item) => spare.has(item.ctx_id) === pass),
      workspace: queues.workspace.filter((item) => spare.has(item.ctx_id) === pass),
    };
    const next = { chronicle: 0, memory: 0, workspace: 0 };
    while (context.overThreshold(scope)) {
      const usage = context.tokenUsage(scope);
      let zone: AllocableZone | null = null;
      let fullest = -1;
      for (const candidate of ALLOCABLE_ZONES) {
        if (next[candidate] >= pending[candidate].length) continue;
        const ratio = usage[candidate] / Math.max(budgets[candidate], 1);
        if (ratio > fullest) {
          fullest = ratio;
          zone = candidate;
        }
      }
      if (zone === null) break;
      const item = context.evict(scope, pending[zone][next[zone]++]!.ctx_id);
      if (item) evicted.push({ item, reason: 'aggressive_heuristic' });
    }
    if (!context.overThreshold(scope)) break;
  }
  return evicted;
}
