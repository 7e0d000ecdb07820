import { scanAgentText } from '../navigator/slice-scan.js';

/*
 * The screen every answer, slice proposal and rationale passes before the composition acts on it
 * (spec 004 §10.3; docs/ilp.md "Composition"): an agent's words must never change the limits the
 * request's own header set. It is the slices' scan (ilp/navigator/slice-scan.ts): the injection
 * detector of tool output (aip/detect/, the same one the MCP proxy runs on a server's answer, in
 * its folded and decoded views) with ILP's own rules — orders to change a limit, skip the
 * enforcer or forge the header — and hidden characters. An answer is read into the next prompt
 * exactly as a slice is, so one scan serves both.
 */

/** An instruction to the composition found in `text` (what it is, with an excerpt), or null. */
export function steeringIn(text: string): string | null {
  const found = scanAgentText(text)[0];
  return found === undefined ? null : `${found.description.replace(/\.$/, '')} ("${found.excerpt.slice(0, 80)}")`;
}
