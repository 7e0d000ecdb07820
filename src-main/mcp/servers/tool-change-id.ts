import { createHash } from 'node:crypto';

/**
 * A stable id for one announced tool definition awaiting the person, so the Servers page and the
 * Review card (review/kinds/tool-change.ts) name the same decision.
 */
export function toolChangeDecisionId(server: string, tool: string, hash: string): string {
  return `tool-change-${createHash('sha256').update(`${server}\0${tool}\0${hash}`, 'utf8').digest('hex').slice(0, 32)}`;
}
