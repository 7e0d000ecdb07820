import type { TaintLevel } from '../../../src-shared/silas/execution.js';

/*
 * Whose words a text is (spec 002 §5.12), wherever Silas shows text it keeps: a memory on the
 * Memory page, the memory on a `memory_promotion` card. Text from outside (a tool, a web page,
 * another person) is marked on every surface the same way, so it never reads as the owner's.
 */

const TEXT: Record<TaintLevel, string> = {
  owner: 'from you, signed',
  auth: 'from your session',
  external: 'from outside',
};

const TITLE: Record<TaintLevel, string> = {
  owner: 'Your own words, signed with your key',
  auth: 'Written in your signed-in cockpit or terminal session',
  external: 'Came from a tool, a web page or another person, not from you',
};

/** The badge's words for a taint: "from outside" for external text. */
export function taintBadgeText(taint: TaintLevel): string {
  return TEXT[taint];
}

export function TaintBadge({ taint }: { taint: TaintLevel }) {
  return (
    <span className={`taint-badge taint-badge--${taint}`} title={TITLE[taint]}>
      {TEXT[taint]}
    </span>
  );
}
