import { UNSAFE_SHOWN_CHARS } from '../../../src-shared/text/unsafe-chars.js';
import type { CardChannel, CardOrigin, DecisionCard, DecisionKindName, RiskLevel } from '../../../src-shared/schemas/review.js';

/* Pure text for the Review surface, kept apart from components so it is tested on its own. */

/**
 * The card's accessible name, from its kind and what it is about: "Approval request: write_file
 * on filesystem", "Plan approval: Fix the timezone bug", "Tool change: fetch on web".
 */
export function cardName(card: DecisionCard): string {
  switch (card.kind) {
    case 'tool_call':
      // A server's answer held by the injection detectors must not read as a call waiting to run.
      if (card.details.subject === 'result') return `Held answer: ${card.details.tool} on ${card.details.server}`;
      return `Approval request: ${card.details.tool} on ${card.details.server}`;
    case 'plan':
      return `Plan approval: ${card.details.title}`;
    case 'tool_change':
      return `Tool change: ${card.details.tool} on ${card.details.server}`;
    case 'ilp_slice':
      return `Learned slice: ${card.details.title}`;
    case 'memory_promotion':
      return `Memory to verify: ${excerpt(card.details.content, 80)}`;
  }
}

const UNSAFE_OR_SPACE = new RegExp(`[\\s${UNSAFE_SHOWN_CHARS}]+`, 'g');

/**
 * The first `max` characters of a text on one line, with an ellipsis when cut: a card's name
 * stays short, and characters that would hide or reorder text never reach an accessible name.
 */
export function excerpt(text: string, max: number): string {
  const line = text.replace(UNSAFE_OR_SPACE, ' ').trim();
  if (line.length <= max) return line;
  // Never end on half a surrogate pair.
  return `${line.slice(0, max - 1).replace(/[\ud800-\udbff]$/, '').trimEnd()}…`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Time left until a request expires, rounded up to whole seconds so "0:00" is never shown
 * while the request can still be decided: `m:ss`, or `h:mm:ss` from an hour on; "expired" at 0.
 */
export function formatRemaining(msLeft: number): string {
  if (!Number.isFinite(msLeft) || msLeft <= 0) return 'expired';
  const total = Math.ceil(msLeft / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(seconds)}` : `${minutes}:${pad(seconds)}`;
}

/** What an unanswered request turns into once it expires, in each kind's words. */
export const EXPIRED_TEXT: Record<DecisionKindName, string> = {
  tool_call: 'Expired — the agent gets a timeout',
  plan: 'Expired — silas run gets a timeout and nothing runs',
  tool_change: 'Expired — the tool stays hidden and refused',
  ilp_slice: 'Expired — the slice is not deployed',
  memory_promotion: 'Expired — the memory stays unverified',
};

/** The countdown sentence at time `now` (ms since epoch); `expired` once the time is up. */
export function countdownText(expiresAt: string, now: number, expired: string): string {
  const left = formatRemaining(Date.parse(expiresAt) - now);
  return left === 'expired' ? expired : `Expires in ${left}`;
}

/** Arguments as shown in Details: pretty JSON of the DLP-redacted copy the proxy sent. */
export function formatArgs(args: unknown): string {
  try {
    return JSON.stringify(args, null, 2) ?? 'null';
  } catch {
    return String(args);
  }
}

const RISK_ORDER: readonly RiskLevel[] = ['irreversible', 'high', 'medium', 'low'];

/** A queue's make-up for the density cue, most severe first: "2 irreversible, 3 high, 1 medium". */
export function riskSummary(cards: readonly Pick<DecisionCard, 'riskLevel'>[]): string {
  return RISK_ORDER.map((risk) => [risk, cards.filter((card) => card.riskLevel === risk).length] as const)
    .filter(([, n]) => n > 0)
    .map(([risk, n]) => `${n} ${risk}`)
    .join(', ');
}

/** "1 gate", "3 gates", "200,000 tokens". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

const KIND_NOUNS: readonly (readonly [DecisionKindName, string, string?])[] = [
  ['plan', 'plan'],
  ['tool_call', 'tool call'],
  ['tool_change', 'tool change'],
  ['ilp_slice', 'learned slice'],
  ['memory_promotion', 'memory to verify', 'memories to verify'],
];

/** "1 decision waiting", or with several kinds "3 decisions waiting: 1 plan, 2 tool calls". */
export function waitingText(cards: readonly Pick<DecisionCard, 'kind'>[]): string {
  const total = `${plural(cards.length, 'decision')} waiting`;
  const byKind = KIND_NOUNS.map(([kind, one, many]) => [cards.filter((card) => card.kind === kind).length, one, many] as const).filter(([n]) => n > 0);
  return byKind.length < 2 ? total : `${total}: ${byKind.map(([n, one, many]) => plural(n, one, many)).join(', ')}`;
}

const CHANNEL_LABELS: Record<CardChannel, string> = {
  cockpit: 'your cockpit',
  local_conversation: 'a conversation over the local socket',
  local_requester: 'a local-socket requester',
  runtime: 'the Silas runtime',
};

/** Where a card came from, in words: "a local-socket requester". */
export function channelLabel(channel: CardChannel): string {
  return CHANNEL_LABELS[channel];
}

/** The taint in the card's words (§5.12): whose text this is. */
export function taintLabel(taint: CardOrigin['taint']): string {
  return taint === 'owner' ? 'signed by you' : taint === 'auth' ? 'from your session' : 'external — not from you';
}

/**
 * Text on the card that the requester chose (its reason, the plan it wrote) is shown as its
 * words, never as the runtime's or the person's: everything but the person's own cockpit and
 * the runtime's standing decisions is attributed.
 */
export function isAttributed(origin: CardOrigin | undefined): origin is CardOrigin {
  return origin !== undefined && (origin.channel === 'local_requester' || origin.channel === 'local_conversation');
}

/** "3 more from this source". */
export function moreFromSource(n: number): string {
  return `${n.toLocaleString('en-US')} more from this source`;
}
