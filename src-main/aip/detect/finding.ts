/*
 * What every threat detector reports (docs/threat-detection.md): the tool-definition scan, the
 * injection scan of what servers return and of what agents send, the shell-command analysis and
 * the chain detector. One shape, so the proxy records, redacts and shows them alike: the ledger
 * keeps the rule and the span, the Review card highlights the excerpt.
 */

type DetectorName = 'tool_definition' | 'injection' | 'shell' | 'chain';

export interface DetectorFinding {
  detector: DetectorName;
  /** Stable rule id, snake_case (`ignore_previous`, `cross_tool_shadowing`, `ifs_manipulation`). */
  rule: string;
  /** Human words: what was found and why it matters, one sentence. */
  description: string;
  /** Where, as a JSON path into the scanned value (`description`, `inputSchema.properties.q.description`, `content[0].text`); '' for a bare string. */
  path: string;
  /** UTF-16 offsets of the finding in the original string (not the normalised view). */
  start: number;
  end: number;
  /** The offending text as found, at most 200 characters. */
  excerpt: string;
}

const EXCERPT_MAX = 200;

/** The excerpt of `text` between `start` and `end`, cut to EXCERPT_MAX characters. */
export function excerptOf(text: string, start: number, end: number): string {
  const span = text.slice(start, end);
  return span.length > EXCERPT_MAX ? `${span.slice(0, EXCERPT_MAX - 1)}…` : span;
}
