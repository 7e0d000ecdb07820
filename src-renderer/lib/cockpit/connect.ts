import type { CockpitStore } from '../../store/cockpit-store.js';
import { createClient } from '../client.js';
import { connectAlignment, type AlignmentActions } from './alignment.js';
import { connectAudit, type AuditActions } from './audit.js';
import { connectClients, type ClientsActions } from './clients.js';
import { connectIlp, type IlpActions } from './ilp.js';
import { connectMemory, type MemoryActions } from './memory.js';
import { deliverEvent, type Call, type FeatureDeps, type FeatureWiring } from './feature.js';
import { connectNavigation, type NavigationActions } from './navigation.js';
import { connectPolicies, type PolicyActions } from './policies.js';
import { connectReview, type ReviewActions } from './review.js';
import { connectRuntime, type RuntimeActions } from './runtime.js';
import { connectServers } from './servers.js';
import { connectStanding, type StandingActions } from './standing.js';
import { connectStream, secretStore, type StreamActions } from './stream.js';
import { connectStreamContext, type StreamContextActions } from './stream-context.js';
import type { NotificationsPort } from '../notifications.js';
import type { ScopeStorage } from '../stream-scope.js';
import type { Transport } from '../transport.js';

/** What components may ask for; everything with a side effect goes through here. */
export interface CockpitActions
  extends AuditActions,
    NavigationActions,
    ReviewActions,
    StandingActions,
    ClientsActions,
    RuntimeActions,
    StreamActions,
    StreamContextActions,
    PolicyActions,
    AlignmentActions,
    IlpActions,
    MemoryActions {}

export interface Cockpit {
  actions: CockpitActions;
  dispose(): void;
}

export interface CockpitDeps {
  transport: Transport;
  store: CockpitStore;
  /** The window whose address bar carries the route; omitted in tests that do not navigate. */
  window?: Pick<Window, 'location' | 'history' | 'addEventListener' | 'removeEventListener'>;
  /** Browser notifications for new decisions; omitted in the desktop shell and in tests that do not notify. */
  notifications?: NotificationsPort | null;
  /** Where this tab keeps its conversation scope (sessionStorage); omitted, a reload opens a new conversation. */
  scopeStorage?: ScopeStorage | null;
}

/**
 * Wires transport, client and store together once, outside React (docs/architecture.md §4.7):
 * every feature has the one wiring shape (feature.ts), and this is the loop over them.
 * Every (re)connect reloads what the cockpit shows; a generation counter drops answers that
 * belong to a connection that has since been replaced.
 */
export function connectCockpit({ transport, store, window: win, notifications = null, scopeStorage = null }: CockpitDeps): Cockpit {
  const client = createClient(transport);
  let generation = 0;
  const call: Call = (name, args) => client.call(name, args);
  const deps: FeatureDeps = { call, store, generation: () => generation };

  const navigation = connectNavigation({
    store,
    window: win ?? null,
    connected: () => transport.state === 'connected',
    opened: (route) => features.forEach((feature) => feature.opened?.[route]?.()),
  });
  const navigate = navigation.actions.navigate;
  const audit = connectAudit(deps);
  const runtime = connectRuntime(deps);
  const servers = connectServers(deps);
  const review = connectReview({ ...deps, notifications, openPage: () => navigate('review'), reloadServers: () => servers.reload() });
  const streamContext = connectStreamContext(deps);
  const stream = connectStream({ ...deps, storeSecret: secretStore(transport, call), storage: scopeStorage, onOpened: () => streamContext.scopeOpened() });
  const clients = connectClients(deps);
  const standing = connectStanding(deps);
  // The desktop window hides rather than closes and keeps the draft: only a browser tab warns before unload.
  const policies = connectPolicies({ ...deps, page: win && !('silas' in win && win.silas) ? win : null });
  const alignment = connectAlignment({ ...deps, notifications, openPage: () => navigate('alignment') });
  const ilp = connectIlp(deps);
  const memory = connectMemory(deps);
  // The ledger first: a new entry is in the Activity log before any page reacts to it.
  const features: FeatureWiring[] = [audit, navigation, runtime, review, stream, streamContext, servers, clients, standing, policies, alignment, ilp, memory];

  function reload(): void {
    generation += 1;
    for (const feature of features) feature.reload();
  }

  const offEvent = transport.onEvent((name, payload) => deliverEvent(features, name, payload));

  const offState = transport.onState((state) => {
    store.getState().setConnection(state);
    if (state === 'connected') reload();
  });

  store.getState().setConnection(transport.state);
  if (transport.state === 'connected') reload();

  return {
    actions: {
      ...audit.actions,
      ...navigation.actions,
      ...runtime.actions,
      ...review.actions,
      ...stream.actions,
      ...streamContext.actions,
      ...clients.actions,
      ...standing.actions,
      ...policies.actions,
      ...alignment.actions,
      ...ilp.actions,
      ...memory.actions,
    },
    dispose: () => {
      offEvent();
      offState();
      for (const feature of features) feature.dispose();
      generation += 1;
      transport.close();
    },
  };
}
