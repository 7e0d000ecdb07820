import type { StateCreator } from 'zustand';
import { auditCategory, type AuditCategory } from '../../src-shared/audit/events.js';
import type { GovernedServer } from '../../src-shared/schemas/servers.js';
import type { CockpitState } from './cockpit-store.js';

interface ServersState {
  /** Sorted by name, as the runtime returns them. */
  servers: readonly GovernedServer[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  /** Why the list could not be loaded (the last list stays visible). */
  error: string | null;
}

export interface ServersSlice {
  servers: ServersState;
  serversLoading(): void;
  serversLoaded(servers: readonly GovernedServer[]): void;
  serversFailed(message: string): void;
  /**
   * The person accepted the changed definition decided by Review card `decisionId`: the pin shows
   * it as approved now, before the list is reloaded. Sending the decision and its errors belong
   * to the Review slice, the one place decisions go through.
   */
  toolChangeAccepted(decisionId: string, at: string): void;
}

const initialServers: ServersState = { servers: [], status: 'idle', error: null };

export const createServersSlice: StateCreator<CockpitState, [], [], ServersSlice> = (set) => {
  const update = (fn: (s: ServersState) => ServersState) => set((state) => ({ servers: fn(state.servers) }));
  return {
    servers: initialServers,
    serversLoading: () => update((s) => ({ ...s, status: s.status === 'ready' ? 'ready' : 'loading', error: null })),
    serversLoaded: (servers) => update((s) => ({ ...s, servers, status: 'ready', error: null })),
    serversFailed: (message) => update((s) => ({ ...s, status: s.status === 'ready' ? 'ready' : 'error', error: message })),
    toolChangeAccepted: (decisionId, at) =>
      update((s) => ({
        ...s,
        servers: s.servers.map((server) => ({
          ...server,
          pins: server.pins.map((pin) =>
            pin.decisionId === decisionId && pin.pendingHash !== null
              ? { ...pin, approvedHash: pin.pendingHash, approvedAt: at, pendingHash: null, pendingSince: null, decisionId: null }
              : pin,
          ),
        })),
      })),
  };
};

const SERVER_CATEGORIES: ReadonlySet<string> = new Set<AuditCategory>(['mcp_proxy', 'mcp_tool', 'mcp_client', 'policy_decision']);

/** Audit events after which the Servers page may be stale: proxy starts, pins, changes, approvals and decisions. */
export function affectsServers(event: string): boolean {
  return SERVER_CATEGORIES.has(auditCategory(event));
}
