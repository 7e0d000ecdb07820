import type { ScorerInput, ScorerOutput } from '../../../src-shared/silas/agents.js';
import { ALLOCABLE_ZONES, type ContextItem } from '../../../src-shared/silas/context.js';
import { evictableBlockIds, type ContextScorer } from '../agents/definitions.js';
import type { ContextManager, EvictedItem } from './context-manager.js';
import { messageText } from './eviction.js';
import { aggressiveQueues } from './fallback-eviction.js';

/**
 * The scorer half of spec 002 §5.7 Tier 2: what the scorer model is shown (the blocks it may
 * evict, the current goal, the last turns), the call under its hard timeout, and the eviction of
 * the groups it names, least valuable first, until usage is no longer above the threshold. Only
 * ids `evictableBlockIds` lets through are evicted, and the context manager refuses pinned and
 * system items again whatever the answer says.
 */

/** §5.7 "Hard timeout: 2 seconds", for the whole scorer call (its one repair included). */
export const SCORER_TIMEOUT_MS = 2_000;
/** Blocks shown to the scorer at most: the prompt must fit a lightweight model (docs/silas/context.md). */
const MAX_SCORER_BLOCKS = 200;
const PREVIEW_CHARS = 240;
const GOAL_MESSAGES = 3;
const GOAL_CHARS = 1_000;
const RECENT_TURNS = 3;
const RECENT_LINE_CHARS = 600;
const RECENT_TURN_CHARS = 3_000;

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The person's own messages in the chronicle (`channel:*`, §5.1 step 3). */
const isPersonMessage = (item: ContextItem): boolean => item.zone === 'chronicle' && item.kind === 'message' && item.source.startsWith('channel:');

/** §5.7 `current_goal`: what the person asked for lately, from their last messages, newest last. */
function currentGoal(chronicle: readonly ContextItem[]): string | null {
  const asked = chronicle.filter(isPersonMessage).slice(-GOAL_MESSAGES).map((item) => messageText(item.content));
  return asked.length === 0 ? null : clip(asked.join(' / '), GOAL_CHARS);
}

/** §5.7 "Recent turns (last 2-3)": the chronicle of the last three turns, one text per turn. */
function recentTurns(chronicle: readonly ContextItem[]): string[] {
  const turns = [...new Set(chronicle.map((item) => item.turn_number))].sort((a, b) => a - b).slice(-RECENT_TURNS);
  return turns.map((turn) =>
    clip(
      `turn ${turn}:\n${chronicle
        .filter((item) => item.turn_number === turn)
        .map((item) => clip(item.content, RECENT_LINE_CHARS))
        .join('\n')}`,
      RECENT_TURN_CHARS,
    ),
  );
}

/**
 * The scorer's input: the Tier 2 candidates (never system-zone, pinned or current-turn chronicle
 * items), each by its ctx id with its metadata and a short excerpt. Past MAX_SCORER_BLOCKS, the
 * zones are taken in turns from the front of the aggressive heuristic's queues: the blocks that
 * would otherwise go first are the ones worth a judgement.
 */
export function scorerInput(context: Pick<ContextManager, 'getZone'>, scope: string, turn: number): ScorerInput {
  const queues = aggressiveQueues(context, scope, turn);
  // The heuristic spares active workspace; the scorer may still judge it (a plan that is not pinned).
  const completed = new Set(queues.workspace);
  const workspace = context.getZone(scope, 'workspace').filter((item) => !item.pinned && !completed.has(item));
  const lanes = [queues.chronicle, queues.memory, [...queues.workspace, ...workspace]];
  const chosen: ContextItem[] = [];
  for (let i = 0; chosen.length < MAX_SCORER_BLOCKS && lanes.some((lane) => i < lane.length); i += 1) {
    for (const lane of lanes) if (i < lane.length && chosen.length < MAX_SCORER_BLOCKS) chosen.push(lane[i]!);
  }
  const chronicle = context.getZone(scope, 'chronicle');
  return {
    current_goal: currentGoal(chronicle),
    recent_turns: recentTurns(chronicle),
    blocks: chosen.map((item) => ({
      block_id: item.ctx_id,
      zone: item.zone as (typeof ALLOCABLE_ZONES)[number],
      kind: item.kind,
      source: item.source,
      taint: item.taint,
      turn_number: item.turn_number,
      token_count: item.token_count,
      relevance: Math.min(1, Math.max(0, item.relevance)),
      preview: clip(item.content, PREVIEW_CHARS),
    })),
  };
}

/** How a scorer call ended: an answer the harness may use, or why it may not. */
export type ScorerVerdict =
  | { kind: 'answer'; output: ScorerOutput; source: 'model' | 'repaired' }
  /** The answer was invalid twice, or the call failed (§5.1.0): the structured-output event says which. */
  | { kind: 'fallback' }
  | { kind: 'timeout' }
  | { kind: 'failed' }
  | { kind: 'cancelled' };

/**
 * One scorer call under the hard timeout. On timeout the call is aborted (its HTTP request ends)
 * and anything it reports later is ignored; a cancelled turn is reported as such, never as a
 * scorer failure. Never throws: every outcome is a verdict the caller turns into a fallback.
 */
export async function askScorer(
  scorer: ContextScorer,
  input: ScorerInput,
  options: { timeoutMs?: number; signal?: AbortSignal; onSettled?: () => void } = {},
): Promise<ScorerVerdict> {
  const timeoutMs = options.timeoutMs ?? SCORER_TIMEOUT_MS;
  const timeout = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<ScorerVerdict>((resolve) => {
    timer = setTimeout(() => {
      timeout.abort(new Error(`the scorer did not answer within ${timeoutMs} ms`));
      resolve({ kind: 'timeout' });
    }, timeoutMs);
  });
  const answered = (async (): Promise<ScorerVerdict> => {
    try {
      const result = await scorer.score(input, signal);
      if (result.source === 'fallback') return { kind: 'fallback' };
      return { kind: 'answer', output: result.value, source: result.source };
    } catch {
      return options.signal?.aborted ? { kind: 'cancelled' } : timeout.signal.aborted ? { kind: 'timeout' } : { kind: 'failed' };
    }
  })();
  try {
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
    options.onSettled?.();
  }
}

/**
 * §5.7: "the harness evicts the lowest-priority groups until usage drops below
 * eviction_threshold_pct". Groups are taken in the order the scorer gave them, each whole (a
 * group is a coherent set: evicting half of it would orphan the rest), stopping once the scope is
 * no longer above the threshold. Ids outside `evictableBlockIds` (not offered, also kept, repeated)
 * are ignored; `evict` refuses pinned and system items again.
 */
export function evictScorerGroups(
  context: Pick<ContextManager, 'evict' | 'overThreshold'>,
  scope: string,
  output: ScorerOutput,
  input: ScorerInput,
): { evicted: EvictedItem[]; reasons: string[] } {
  const allowed = new Set(evictableBlockIds(output, input));
  const evicted: EvictedItem[] = [];
  const reasons: string[] = [];
  for (const group of output.evict_groups) {
    if (!context.overThreshold(scope)) break;
    let took = false;
    for (const id of group.block_ids) {
      if (!allowed.delete(id)) continue;
      const item = context.evict(scope, id);
      if (item === null) continue;
      evicted.push({ item, reason: 'scorer' });
      took = true;
    }
    if (took) reasons.push(group.reason);
  }
  return { evicted, reasons };
}
