import type { AgentClientView, ClientServerView } from '../../../src-shared/schemas/clients.js';

export type ClientServerTone = 'wrapped' | 'unwrapped' | 'unwrappable';

/** One server entry's state in words: wrapped (and under which policy), not wrapped, or why it cannot be. */
export function serverStatus(server: ClientServerView): { tone: ClientServerTone; text: string } {
  if (server.wrapped) return { tone: 'wrapped', text: server.policy ? `Wrapped — policy ${server.policy}` : 'Wrapped — no policy given' };
  if (server.reason) return { tone: 'unwrappable', text: `Not wrappable: ${server.reason}` };
  return { tone: 'unwrapped', text: 'Not wrapped' };
}

export function transportLabel(transport: ClientServerView['transport']): string {
  if (transport === 'stdio') return 'stdio';
  if (transport === 'remote') return 'remote (HTTP)';
  return 'unknown';
}

/** "2 of 5 servers wrapped"; "No MCP servers" for an empty configuration. */
export function wrapSummary(client: AgentClientView): string {
  const total = client.servers.length;
  if (total === 0) return 'No MCP servers';
  const wrapped = client.servers.filter((s) => s.wrapped).length;
  return `${wrapped} of ${total} ${total === 1 ? 'server' : 'servers'} wrapped`;
}

/** A readable configuration with at least one ordinary stdio server not yet behind the proxy. */
export function canWrap(client: AgentClientView): boolean {
  return client.found && client.error === null && client.servers.some((s) => s.transport === 'stdio' && !s.wrapped && s.reason === null);
}

/** Silas recorded a wrap of this file, or an entry runs through the proxy (the runtime says why if it cannot restore). */
export function canUnwrap(client: AgentClientView): boolean {
  return client.found && (client.lastWrap !== null || client.servers.some((s) => s.wrapped));
}

/** A runtime message as a headline and its detail lines (policy errors come one per line, indented). */
export function messageLines(message: string): { headline: string; details: string[] } {
  const [headline = '', ...rest] = message.split('\n');
  return { headline: headline.replace(/:\s*$/, ''), details: rest.map((line) => line.trim()).filter((line) => line.length > 0) };
}
