import type { AgentClientView } from '../../../src-shared/schemas/clients.js';
import type { GovernedServer } from '../../../src-shared/schemas/servers.js';
import type { PolicyFileStatus } from '../../store/policy-editor-state.js';
import type { StandingApproval } from '../../store/standing-slice.js';

/* Pure helpers of the form view and of standing approvals turned into rules; the splicing itself is the runtime's (policies.edit). */

export const POLICY_MODES = ['enforce', 'monitor'] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];

export const TOOL_ACTIONS = ['allow', 'ask', 'block'] as const;
export type ToolAction = (typeof TOOL_ACTIONS)[number];

/** The draft's `mode:` when it can be read off the text (the first one, at any depth), for the Mode select. */
export function draftMode(text: string): PolicyMode | null {
  const found = /^\s*mode:\s*["']?(\w+)/m.exec(text)?.[1];
  return POLICY_MODES.find((mode) => mode === found) ?? null;
}

/** A standing approval's arguments as the object its rule pins (argsDisplay is their JSON); null when they are not an object. */
export function standingArgs(argsDisplay: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(argsDisplay);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const unique = (paths: readonly string[]): string | null => {
  const distinct = [...new Set(paths)];
  return distinct.length === 1 ? distinct[0]! : null;
};

/**
 * The policy file a server's proxy runs under: the `--policy` of the client entries that wrap it,
 * when they agree; otherwise the one policy of this installation whose hash is the one in force
 * for the server. Null when that is unknown or ambiguous, rather than a guess.
 */
export function serverPolicyPath(
  server: string,
  clients: readonly AgentClientView[],
  servers: readonly GovernedServer[],
  policies: readonly PolicyFileStatus[],
): string | null {
  const wrapped = clients.flatMap((c) => c.servers).filter((s) => s.name === server && s.wrapped && s.policy);
  if (wrapped.length > 0) return unique(wrapped.map((s) => s.policy!));
  const hash = servers.find((s) => s.name === server)?.policyHash;
  return hash ? unique(policies.filter((p) => p.hash === hash).map((p) => p.path)) : null;
}

/** The accessible name of a standing approval's "Make a rule" button. */
export function makeRuleName(item: Pick<StandingApproval, 'server' | 'tool'>): string {
  return `Make a rule of ${item.tool} on ${item.server}`;
}
