import { ZONE_ORDER, type ContextItem, type ContextZone } from '../../../src-shared/silas/context.js';

/**
 * Rendering of context items into the prompt (spec 002 §3.5 block format, §5.7 "Rendering"):
 * each item is a block whose header says its kind, provenance and freshness, closed by
 * `--- end ---`; zones follow in the order system → chronicle → memory → workspace and items in
 * the order they were added. The output depends on the items alone (no clock, no randomness), so
 * the same context always renders to the same bytes.
 */

const BLOCK_END = '--- end ---';
export const BLOCK_SEPARATOR = '\n\n';

/** One zone's rendered blocks (zones without items are left out). */
export interface RenderedSection {
  zone: ContextZone;
  text: string;
}

/** Who said a message, from its source label (§5.1 steps 3 and 11: `channel:*` in, `agent:*` out). */
function speaker(source: string): string {
  if (source.startsWith('channel:')) return 'user';
  if (source.startsWith('agent:')) return 'silas';
  return source;
}

/** The header line of a block, shaped as the examples of §3.5. */
export function blockHeader(item: ContextItem): string {
  const state = item.masked ? 'masked' : 'live';
  switch (item.kind) {
    case 'system':
      return `--- system | ${item.source} ---`;
    case 'message':
      return `--- turn ${item.turn_number} | ${speaker(item.source)} | ${state} ---`;
    case 'tool_result':
      return `--- tool_result | turn ${item.turn_number} | ${state} ---`;
    case 'memory':
      return `--- memory | ${item.created_at.slice(0, 10)} | ${item.source} ---`;
    default:
      return `--- ${item.kind} | turn ${item.turn_number} | ${item.source} | ${state} ---`;
  }
}

/** The fields of a subscription block's header (context/subscription-state.ts `SubscriptionBlockMeta`). */
interface SubscriptionHeader {
  sub_type: string;
  target: string;
  state: string;
  last_changed: number | null;
}

/**
 * §3.5: `--- subscription:file | auth.py:10-45 | live | last_changed: turn 8 ---`. The target
 * cannot hold `|` or a line break (`SubscriptionTarget`); anything else that could still break the
 * line is replaced here as well, so no file name can add a header field or a line.
 */
export function subscriptionHeader(meta: SubscriptionHeader): string {
  // eslint-disable-next-line no-control-regex
  const target = meta.target.replace(/[\x00-\x1f\x7f|\u2028\u2029]/gu, '?');
  const changed = meta.last_changed === null ? 'not read yet' : `turn ${meta.last_changed}`;
  return `--- subscription:${meta.sub_type} | ${target} | ${meta.state} | last_changed: ${changed} ---`;
}

const DELIMITER_LINE = /^(\\*---)/gmu;

/**
 * A content line that starts with `---` gets one more leading backslash, so text from a tool, a
 * web page or a customer cannot close its block and open a forged one (a fake `--- turn 9 | user
 * | live ---` with owner-sounding instructions). Injective: `\---` becomes `\\---`.
 */
export function escapeContent(content: string): string {
  return content.includes('---') ? content.replace(DELIMITER_LINE, '\\$1') : content;
}

export function renderBlock(item: ContextItem, header: string = blockHeader(item)): string {
  return `${header}\n${escapeContent(item.content)}\n${BLOCK_END}`;
}

/** The non-empty zones in render order, each as its blocks joined by a blank line. */
export function renderSections(
  zones: Readonly<Record<ContextZone, Iterable<ContextItem>>>,
  block: (item: ContextItem) => string = renderBlock,
): RenderedSection[] {
  const sections: RenderedSection[] = [];
  for (const zone of ZONE_ORDER) {
    const blocks: string[] = [];
    for (const item of zones[zone]) blocks.push(block(item));
    if (blocks.length > 0) sections.push({ zone, text: blocks.join(BLOCK_SEPARATOR) });
  }
  return sections;
}

/** The whole context as one string: the same text as the sections joined by a blank line, built in one join. */
export function renderAll(zones: Readonly<Record<ContextZone, Iterable<ContextItem>>>, block: (item: ContextItem) => string = renderBlock): string {
  const blocks: string[] = [];
  for (const zone of ZONE_ORDER) for (const item of zones[zone]) blocks.push(block(item));
  return blocks.join(BLOCK_SEPARATOR);
}
