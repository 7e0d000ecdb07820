import type { StateCreator } from 'zustand';
import { auditCategory } from '../../src-shared/audit/events.js';
import type { AgentClientView, ClientWrapPlanView } from '../../src-shared/schemas/clients.js';
import type { CockpitState } from './cockpit-store.js';

/** The one "Wrap servers…" flow open on the page: a policy, a preview, then apply or cancel. */
export interface WrapFlow {
  client: string;
  /** editing: no preview yet · previewing/applying: waiting on the runtime · previewed: the diff is shown. */
  phase: 'editing' | 'previewing' | 'previewed' | 'applying';
  /** The policy as the person typed it for the preview shown (a changed input makes the preview stale). */
  requestedPolicy: string | null;
  plan: ClientWrapPlanView | null;
  /** The runtime's message for the last failed preview or apply, shown inline. */
  error: string | null;
}

export interface ClientsState {
  clients: readonly AgentClientView[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  /** Why the list could not be loaded (the last list stays visible). */
  error: string | null;
  wrap: WrapFlow | null;
  /** The client whose unwrap is on its way; every unwrap button waits for it. */
  unwrapping: string | null;
  unwrapError: { client: string; message: string } | null;
  /** What the last wrap or unwrap did, in words. */
  outcome: { client: string; message: string } | null;
}

export interface ClientsSlice {
  clients: ClientsState;
  clientsLoading(): void;
  clientsLoaded(clients: readonly AgentClientView[]): void;
  clientsFailed(message: string): void;
  wrapOpened(client: string): void;
  wrapClosed(): void;
  wrapPreviewing(client: string, policy: string): void;
  wrapPreviewed(client: string, plan: ClientWrapPlanView): void;
  wrapApplying(client: string): void;
  wrapApplied(client: string, message: string): void;
  wrapFailed(client: string, message: string): void;
  unwrapStarted(client: string): void;
  unwrapDone(client: string, message: string): void;
  unwrapFailed(client: string, message: string): void;
}

const initialClients: ClientsState = { clients: [], status: 'idle', error: null, wrap: null, unwrapping: null, unwrapError: null, outcome: null };

export const createClientsSlice: StateCreator<CockpitState, [], [], ClientsSlice> = (set) => {
  const update = (fn: (s: ClientsState) => ClientsState) => set((state) => ({ clients: fn(state.clients) }));
  /** Changes the open flow only when it belongs to `client` (an answer for a cancelled flow is dropped). */
  const flow = (client: string, fn: (f: WrapFlow) => WrapFlow | null) =>
    update((s) => (s.wrap && s.wrap.client === client ? { ...s, wrap: fn(s.wrap) } : s));
  return {
    clients: initialClients,
    clientsLoading: () => update((s) => ({ ...s, status: s.status === 'ready' ? 'ready' : 'loading', error: null })),
    clientsLoaded: (clients) => update((s) => ({ ...s, clients, status: 'ready', error: null })),
    clientsFailed: (message) => update((s) => ({ ...s, status: s.status === 'ready' ? 'ready' : 'error', error: message })),
    wrapOpened: (client) =>
      update((s) => ({ ...s, wrap: { client, phase: 'editing', requestedPolicy: null, plan: null, error: null }, outcome: null, unwrapError: null })),
    wrapClosed: () => update((s) => ({ ...s, wrap: null })),
    wrapPreviewing: (client, policy) => flow(client, (f) => ({ ...f, phase: 'previewing', requestedPolicy: policy, plan: null, error: null })),
    wrapPreviewed: (client, plan) => flow(client, (f) => (f.phase === 'previewing' ? { ...f, phase: 'previewed', plan, error: null } : f)),
    wrapApplying: (client) => flow(client, (f) => (f.plan ? { ...f, phase: 'applying', error: null } : f)),
    wrapApplied: (client, message) => update((s) => ({ ...s, wrap: s.wrap?.client === client ? null : s.wrap, outcome: { client, message } })),
    // A failed preview goes back to editing; a failed apply keeps the preview it was about.
    wrapFailed: (client, message) => flow(client, (f) => ({ ...f, phase: f.phase === 'applying' ? 'previewed' : 'editing', error: message })),
    unwrapStarted: (client) => update((s) => ({ ...s, unwrapping: client, unwrapError: null, outcome: null })),
    unwrapDone: (client, message) => update((s) => ({ ...s, unwrapping: s.unwrapping === client ? null : s.unwrapping, outcome: { client, message } })),
    unwrapFailed: (client, message) =>
      update((s) => ({ ...s, unwrapping: s.unwrapping === client ? null : s.unwrapping, unwrapError: { client, message } })),
  };
};

/** Audit events after which the agent clients may have changed on disk: a wrap or unwrap, from here or the CLI's ledger. */
export function affectsClients(event: string): boolean {
  return auditCategory(event) === 'mcp_client';
}
