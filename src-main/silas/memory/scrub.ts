import { actionable } from '../../aip/detect/detectors.js';
import { InjectionDetector } from '../../aip/detect/injection.js';
import { invisibleRuns } from '../../aip/detect/tool-definition-chars.js';

/*
 * External-tainted content is injection-scrubbed before it is stored as memory (spec 002 §5.12,
 * §3.8 `taint`; docs/silas/chronicle-and-memory.md "Trust"). A memory is recalled into later
 * prompts, maybe weeks later and in another conversation, where nothing shows the tool output it
 * came from: an instruction kept in it would steer that turn. The same detector that screens MCP
 * tool results (aip/detect/, docs/threat-detection.md) finds the spans; each is replaced by a
 * marker saying what was removed, and the item keeps its `external` taint. Owner and auth text is
 * stored as written: it is the person's.
 */

let detector: InjectionDetector | null = null;
const MARKER = (why: string) => `[removed by Silas: ${why}]`;

export interface Scrubbed {
  text: string;
  /** What was removed, for the audit: one short reason per span. */
  removed: string[];
}

/** The text with every instruction-like or hidden span replaced by a marker; unchanged when nothing was found. */
export function scrubExternal(text: string): Scrubbed {
  detector ??= new InjectionDetector('results');
  const spans = [
    ...actionable(detector.scanText(text)).map((finding) => ({ start: finding.start, end: finding.end, why: finding.description })),
    ...invisibleRuns(text).map((run) => ({ start: run.start, end: run.end, why: 'hidden characters' })),
  ]
    .filter((span) => span.end > span.start)
    .sort((a, b) => a.start - b.start || b.end - a.end);
  if (spans.length === 0) return { text, removed: [] };
  let out = '';
  let at = 0;
  const removed: string[] = [];
  for (const span of spans) {
    if (span.start < at) continue; // inside a span already removed
    out += text.slice(at, span.start) + MARKER(shortReason(span.why));
    removed.push(shortReason(span.why));
    at = span.end;
  }
  return { text: out + text.slice(at), removed };
}

/** What a memory of this taint keeps: external text scrubbed, the owner's and auth text as written. */
export function forMemory(content: string, taint: 'owner' | 'auth' | 'external'): Scrubbed {
  return taint === 'external' ? scrubExternal(content) : { text: content, removed: [] };
}

function shortReason(why: string): string {
  // "Text tells the agent …: "excerpt"": the rule, not the excerpt (the excerpt is what was removed).
  return why.split(':')[0]!.replace(/\s+/g, ' ').slice(0, 80).toLowerCase().replace(/\.$/, '');
}
