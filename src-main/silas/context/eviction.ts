import type { AllocableZone, ContextItem } from '../../../src-shared/silas/context.js';

/**
 * The first, heuristic tier of eviction (spec 002 §5.7 Tier 1): observation masking of old tool
 * results, dropping trivial acknowledgements, and the zone policies (oldest chronicle first,
 * lowest-relevance memory first, completed workspace first). Pure functions over items, so the
 * context manager's decisions are deterministic and testable apart from it. Subscriptions
 * (step 3) and the scorer tier come later.
 */

export type ToolOutcome = 'succeeded' | 'failed';

/**
 * The source label of a tool result: `tool:<name>:succeeded` or `tool:<name>:failed`. ContextItem
 * has no field for the tool or its outcome, but the masked placeholder of §5.7 names both, and a
 * chronicle item read back after a restart (§4.14) must still be maskable, so they travel in the
 * one field meant for provenance.
 */
export function toolResultSource(toolName: string, outcome: ToolOutcome): string {
  return `tool:${toolName}:${outcome}`;
}

const TOOL_SOURCE = /^tool:(.+):(succeeded|failed)$/su;

export function parseToolResultSource(source: string): { toolName: string; outcome: ToolOutcome } | null {
  const match = TOOL_SOURCE.exec(source);
  return match ? { toolName: match[1]!, outcome: match[2] as ToolOutcome } : null;
}

/**
 * §5.7: `[Result of {tool_name} ({SUCCEEDED|FAILED}) — {token_count} tokens — see memory for
 * details]`, with the item's token count before masking. The full output is in memory already:
 * the Stream ingests every tool output raw (§5.1 step 11.5).
 */
export function maskedPlaceholder(item: ContextItem): string {
  const tool = parseToolResultSource(item.source);
  const name = tool?.toolName ?? item.source;
  const outcome = tool?.outcome === 'failed' ? 'FAILED' : 'SUCCEEDED';
  return `[Result of ${name} (${outcome}) — ${item.token_count} tokens — see memory for details]`;
}

/**
 * §5.7 Tier 1 step 1: a tool result from before `turn - observation_mask_after_turns`. Pinned
 * items are left whole: pinning is the harness saying this content must stay as it is.
 */
export function shouldMask(item: ContextItem, turnNumber: number, maskAfterTurns: number): boolean {
  return item.kind === 'tool_result' && !item.masked && !item.pinned && item.turn_number < turnNumber - maskAfterTurns;
}

/** §5.7 Tier 1 step 2's default pattern, matched without regard to case ("OK", "Thanks!"). */
export const DEFAULT_TRIVIAL_ACK = /^(ok|thanks|got it|sure|yes|no|👍)\s*[.!?]*$/iu;
/** §5.7: only acknowledgements shorter than this many tokens are trivial. */
const TRIVIAL_MAX_TOKENS = 20;

/**
 * The text of a chronicle message without the speaker prefix the Stream writes (§5.1 step 3:
 * `[{taint}] {sender_id}: {text}`; step 11: `Silas: {text}`), which the pattern could never match.
 */
const SPEAKER_PREFIX = /^(?:\[(?:owner|auth|external)\] [^\n]*?: |Silas: )/u;
export function messageText(content: string): string {
  return content.replace(SPEAKER_PREFIX, '').trim();
}

/**
 * §5.7 Tier 1 step 2. An acknowledgement from the current turn is kept: it is the person's answer
 * the agent is about to read ("yes" to a question), not history.
 */
export function isTrivialAcknowledgement(item: ContextItem, turnNumber: number, pattern: RegExp): boolean {
  return (
    item.zone === 'chronicle' &&
    item.kind === 'message' &&
    !item.pinned &&
    item.turn_number < turnNumber &&
    item.token_count < TRIVIAL_MAX_TOKENS &&
    pattern.test(messageText(item.content))
  );
}

/** A pattern without `g` or `y`, whose `test` would otherwise depend on the previous call. */
export function statelessPattern(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags.replace(/[gy]/gu, ''));
}

const byAge = (a: ContextItem, b: ContextItem): number =>
  a.turn_number - b.turn_number || (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0);

/**
 * §5.7 Tier 1 step 4: the order in which a zone over its budget gives up unpinned items. Ties keep
 * the order the items were added (the sort is stable), so the choice is deterministic.
 * - chronicle: oldest first;
 * - memory: lowest relevance first, then oldest;
 * - workspace: completed before active. An `execution_result` is the outcome of finished work;
 *   plans and subscriptions are what is active. Then oldest first.
 */
export function evictionOrder(zone: AllocableZone, items: readonly ContextItem[]): ContextItem[] {
  const candidates = items.filter((item) => !item.pinned);
  switch (zone) {
    case 'chronicle':
      return candidates.sort(byAge);
    case 'memory':
      return candidates.sort((a, b) => a.relevance - b.relevance || byAge(a, b));
    case 'workspace':
      return candidates.sort((a, b) => Number(b.kind === 'execution_result') - Number(a.kind === 'execution_result') || byAge(a, b));
  }
}
