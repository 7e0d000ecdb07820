import { events, type CallArgs, type CallName, type CallResult } from '../../src-shared/contract/index.js';
import type { CockpitStore } from '../store/cockpit-store.js';
import { createClient, isClientError } from './client.js';
import { parseRoute, routeHash, type Route } from './routes.js';
import type { Transport } from './transport.js';

/** Page size for the audit log: large enough that scrolling rarely waits, well under AUDIT_PAGE_MAX. */
export const AUDIT_PAGE_SIZE = 500;

/** What components may ask for; everything with a side effect goes through here. */
export interface CockpitActions {
  loadOlderAudit(): void;
  verifyChain(): void;
  navigate(route: Route): void;
}

export interface Cockpit {
  actions: CockpitActions;
  dispose(): void;
}

export interface CockpitDeps {
  transport: Transport;
  store: CockpitStore;
  /** The window whose address bar carries the route; omitted in tests that do not navigate. */
  window?: Pick<Window, 'location' | 'history' | 'addEventListener' | 'removeEventListener'>;
}

function describeError(error: unknown): string {
  if (isClientError(error)) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Wires transport, client and store together once, outside React (DESIGN convention 7).
 * Every (re)connect reloads what the cockpit shows; a generation counter drops answers that
 * belong to a connection that has since been replaced.
 */
export function connectCockpit({ transport, store, window: win }: CockpitDeps): Cockpit {
  const client = createClient(transport);
  let generation = 0;
  let verifyRequest = 0;

  const call = <N extends CallName>(name: N, args: CallArgs<N>): Promise<CallResult<N>> => client.call(name, args);

  function verifyChain(): void {
    const request = ++verifyRequest;
    store.getState().chainVerifying();
    call('audit.verify', {}).then(
      (result) => {
        if (request === verifyRequest) store.getState().chainVerified(result);
      },
      (error: unknown) => {
        if (request === verifyRequest) store.getState().chainFailed(describeError(error));
      },
    );
  }

  function reload(): void {
    const current = ++generation;
    const state = store.getState();
    state.auditLoading();
    call('runtime.info', {}).then(
      (info) => current === generation && store.getState().runtimeLoaded(info),
      (error: unknown) => current === generation && store.getState().runtimeFailed(describeError(error)),
    );
    call('audit.list', { limit: AUDIT_PAGE_SIZE }).then(
      (page) => current === generation && store.getState().auditFirstPageLoaded(page),
      (error: unknown) => current === generation && store.getState().auditFailed(describeError(error)),
    );
    verifyChain();
  }

  function loadOlderAudit(): void {
    const audit = store.getState().audit;
    const oldest = audit.entries[audit.entries.length - 1];
    if (audit.status !== 'ready' || audit.loadingMore || !audit.hasMore || !oldest) return;
    const current = generation;
    store.getState().auditOlderLoading();
    call('audit.list', { before: oldest.index, limit: AUDIT_PAGE_SIZE }).then(
      (page) => current === generation && store.getState().auditOlderPageLoaded(page),
      (error: unknown) => current === generation && store.getState().auditOlderFailed(describeError(error)),
    );
  }

  function navigate(route: Route): void {
    store.getState().setRoute(route);
    const hash = routeHash(route);
    if (win && win.location.hash !== hash) win.history.pushState(null, '', hash);
  }

  const onHashChange = () => {
    if (win) store.getState().setRoute(parseRoute(win.location.hash));
  };
  win?.addEventListener('hashchange', onHashChange);

  const offEvent = transport.onEvent((name, payload) => {
    if (name !== 'audit.appended') return;
    const entry = events['audit.appended'].payload.safeParse(payload);
    if (entry.success) store.getState().auditAppended(entry.data);
  });

  const offState = transport.onState((state) => {
    store.getState().setConnection(state);
    if (state === 'connected') reload();
  });

  store.getState().setConnection(transport.state);
  if (transport.state === 'connected') reload();

  return {
    actions: { loadOlderAudit, verifyChain, navigate },
    dispose: () => {
      offEvent();
      offState();
      win?.removeEventListener('hashchange', onHashChange);
      generation += 1;
      transport.close();
    },
  };
}
