import { z } from 'zod';
import { closed, type ApiVersion } from './schema-kit.js';

/*
 * spec.x-silas-tools-list: Silas's documented extension of the AgentPolicy (AIP spec 001 says
 * nothing about what a proxy offers in tools/list). By default the proxy offers only what may
 * run: a tool every call of which the policy blocks is left out, and a tool that waits for the
 * person says so in its description (docs/mcp-proxy.md "What tools/list offers"). A client that
 * needs the server's full list, exactly as announced, sets both back. Being part of the
 * document, it is covered by the policy hash and signature like every other field.
 */

export const TOOLS_LIST_KEY = 'x-silas-tools-list';

const TOOLS_LIST_BLOCKED = ['omit', 'list'] as const;
const TOOLS_LIST_ASK = ['mark', 'plain'] as const;

export function toolsListSchema(version: ApiVersion) {
  return closed(version, {
    blocked: z.enum(TOOLS_LIST_BLOCKED)
      .default('omit')
      .describe('omit (default): a tool the policy blocks outright (every call refused, whatever the arguments) is left out of tools/list. list: it is listed as the server announced it (its calls are still refused).'),
    ask: z.enum(TOOLS_LIST_ASK)
      .default('mark')
      .describe('mark (default): the description of a tool whose calls wait for the person (action: ask) begins with "(Silas asks the person before this tool runs)". plain: it is listed as the server announced it.'),
  });
}

export type ToolsListDocument = z.output<ReturnType<typeof toolsListSchema>>;

/** What a policy without the section gets. */
export const DEFAULT_TOOLS_LIST: ToolsListDocument = { blocked: 'omit', ask: 'mark' };
