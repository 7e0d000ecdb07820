import type { StateCreator } from 'zustand';
import { auditCategory, type AuditCategory } from '../../src-shared/audit/events.js';
import type { GovernedServer } from '../../src-shared/schemas/servers.js';
import type { CockpitState } from './cockpit-store.js';

/** One pinned tool on one server: what an approval of a changed definition is about. */
export interface ToolKey {
  server: string;
  tool: string;
}

export interface ServersState {
  /** Sorted by name, as the runtime returns them. */
  servers: readonly GovernedServer[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  /** Why the list could not be loaded (the last list stays visible). */
  error: string | null;
  /** The tool-change approval on its way; every approve button waits for it. */
  approving: ToolKey | null;
  /** The last failed approval, with the runtime's message. */
  approveError: (ToolKey & { message: string }) | null;
}

export interface ServersSlice {
  servers: ServersState;
  serversLoading(): void;
  serversLoaded(servers: readonly GovernedServer[]): void;
  serversFailed(message: string): void;
  toolChangeApproving(key: ToolKey): void;
  /** The runtime accepted `hash`: the pin shows it as approved now, before the list is reloaded. */
  toolChangeApproved(key: ToolKey, hash: string, at: string): void;
  toolChangeApproveFailed(key: ToolKey, message: string): void;
}

const initialServers: ServersState = { servers: [], status: 'idle', error: null, approving: null, approveError: null };

export const sameTool = (a: ToolKey | null, b: ToolKey): boolean => a !== null && a.server === b.server && a.tool === b.tool;

/** Keeps a failed approval visible only while its change is still pending. */
function stillPending(error: ServersState['approveError'], servers: readonly GovernedServer[]): ServersState['approveError'] {
  if (!error) return null;
  const pin = servers.find((s) => s.name === error.server)?.pins.find((p) => p.tool === error.tool);
  return pin?.pendingHash ? error : null;
}

export const createServersSlice: StateCreator<CockpitState, [], [], ServersSlice> = (set) => {
  const update = (fn: (s: ServersState) => ServersState) => set((state) => ({ servers: fn(state.servers) }));
  return {
    servers: initialServers,
    serversLoading: () => update((s) => ({ ...s, status: s.status === 'ready' ? 'ready' : 'loading', error: null })),
    serversLoaded: (servers) => update((s) => ({ ...s, servers, status: 'ready', error: null, approveError: stillPending(s.approveError, servers) })),
    serversFailed: (message) => update((s) => ({ ...s, status: s.status === 'ready' ? 'ready' : 'error', error: message })),
    toolChangeApproving: (key) => update((s) => ({ ...s, approving: key, approveError: null })),
    toolChangeApproved: (key, hash, at) =>
      update((s) => ({
        ...s,
        approving: sameTool(s.approving, key) ? null : s.approving,
        servers: s.servers.map((server) =>
          server.name !== key.server
            ? server
            : {
                ...server,
                pins: server.pins.map((pin) =>
                  pin.tool === key.tool && pin.pendingHash === hash ? { ...pin, approvedHash: hash, approvedAt: at, pendingHash: null, pendingSince: null } : pin,
                ),
              },
        ),
      })),
    toolChangeApproveFailed: (key, message) =>
      update((s) => ({ ...s, approving: sameTool(s.approving, key) ? null : s.approving, approveError: { ...key, message } })),
  };
};

const SERVER_CATEGORIES: ReadonlySet<string> = new Set<AuditCategory>(['mcp_proxy', 'mcp_tool', 'mcp_client', 'policy_decision']);

/** Audit events after which the Servers page may be stale: proxy starts, pins, changes, approvals and decisions. */
export function affectsServers(event: string): boolean {
  return SERVER_CATEGORIES.has(auditCategory(event));
}
