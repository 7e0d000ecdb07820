import { normalizeName } from '../../../src-shared/policy/normalize.js';
import { toolStanding } from '../../aip/evaluate/tool-standing.js';
import type { AgentPolicy } from '../../aip/policy/types.js';

/** Begins the description of a tool whose calls wait for the person. */
const ASK_MARK = '(Silas asks the person before this tool runs)';

/** How one announced tool is shown to the client under a policy. */
type Offer = 'omit' | 'mark' | 'plain';

/**
 * Offer only what may run (docs/mcp-proxy.md "What tools/list offers"): a tool the policy blocks
 * outright is left out, so the agent neither learns of it nor tries it, and a tool that asks
 * says so, so the agent can tell the person; `x-silas-tools-list` turns either off. Only what
 * the client sees changes: the pins and the evaluator keep the definitions as announced.
 */
function offerOf(policy: AgentPolicy, normalizedTool: string): Offer {
  const standing = toolStanding(policy, normalizedTool);
  if (standing === 'block' && policy.toolsList.blocked === 'omit') return 'omit';
  if (standing === 'ask' && policy.toolsList.ask === 'mark') return 'mark';
  return 'plain';
}

/**
 * The tools of one tools/list page as offered to the client. `tools` are the entries the pins
 * let through (each a record with a string name); the same array comes back when nothing is
 * left out or marked, so the relay forwards the server's line unchanged.
 */
export function offerTools(policy: AgentPolicy, tools: unknown[]): unknown[] {
  let changed = false;
  const offered: unknown[] = [];
  for (const tool of tools) {
    const entry = tool as { name: string; description?: unknown };
    const offer = offerOf(policy, normalizeName(entry.name));
    if (offer === 'plain') {
      offered.push(tool);
      continue;
    }
    changed = true;
    if (offer === 'mark') offered.push({ ...entry, description: marked(entry.description) });
  }
  return changed ? offered : tools;
}

function marked(description: unknown): string {
  return typeof description === 'string' && description.trim() !== '' ? `${ASK_MARK} ${description}` : ASK_MARK;
}

/**
 * Whether a reloaded policy changes what the client was offered of the tools announced so far
 * (names normalised): then the proxy tells it with notifications/tools/list_changed.
 */
export function offerChanged(before: AgentPolicy, after: AgentPolicy, announced: Iterable<string>): boolean {
  for (const tool of announced) if (offerOf(before, tool) !== offerOf(after, tool)) return true;
  return false;
}

/** The MCP notification that makes a client list the tools again. */
export const TOOLS_LIST_CHANGED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
