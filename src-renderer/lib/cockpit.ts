import { refreshingLoader } from './refreshing-loader.js';
import { events, type CallArgs, type CallName, type CallResult } from '../../src-shared/contract/index.js';
import type { ReviewQueueDelta, ReviewQueueView } from '../../src-shared/schemas/review.js';
import type { CockpitRevokeResult } from '../../src-shared/schemas/cockpit-link.js';

import type { VerifyMode } from '../../src-shared/schemas/audit.js';
import type { CockpitStore } from '../store/cockpit-store.js';
import { affectsClients } from '../store/clients-slice.js';
import { newArrivals } from '../store/review-queue.js';
import { affectsPolicies } from '../store/policy-editor-slice.js';
import { affectsServers } from '../store/servers-slice.js';
import { affectsStanding } from '../store/standing-slice.js';
import { ClientError, createClient, describeError } from './client.js';
import { connectAlignment, type AlignmentActions } from './cockpit-alignment.js';
import { connectPolicies, type PolicyActions } from './cockpit-policies.js';
import { connectStream, type StreamActions } from './cockpit-stream.js';
import { notificationText, type NotificationsPort } from './notifications.js';
import { parseRoute, routeHash, type Route } from './routes.js';
import type { ScopeStorage } from './stream-scope.js';
import type { Transport } from './transport.js';

/** More pages than the runtime's total cap needs; a runtime that keeps growing is not chased forever. */
const REVIEW_MAX_PAGES = 5;

/** Page size for the audit log: large enough that scrolling rarely waits, well under AUDIT_PAGE_MAX. */
export const AUDIT_PAGE_SIZE = 500;

/** A burst of proxy events (a tools/list pins every tool) reloads the Servers page once. */
export const SERVERS_REFRESH_DELAY_MS = 300;

/** Standing approvals are reloaded once per burst of their audit events. */
export const STANDING_REFRESH_DELAY_MS = 300;

/** Agent clients are reloaded once per burst of wrap/unwrap events. */
export const CLIENTS_REFRESH_DELAY_MS = 300;

/** What components may ask for; everything with a side effect goes through here. */
export interface CockpitActions extends StreamActions, PolicyActions, AlignmentActions {
  loadOlderAudit(): void;
  /** Verifies the chain in the runtime's worker: `full` (the default, what the person asks for) or only what is `new`. */
  verifyChain(mode?: VerifyMode): void;
  /** Stops the verification in progress; the last verdict stays. */
  cancelVerify(): void;
  navigate(route: Route): void;
  /**
   * Answers one waiting decision of any kind with one of its card's choices (`review.decide`);
   * one decision at a time, from the Review page or the Servers page alike.
   */
  decide(id: string, choice: string): void;
  /** Asks the browser for notification permission (only meaningful while it is 'default'). */
  enableNotifications(): void;
  /** Revokes one standing "always allow"; one revocation at a time, then the list is reloaded. */
  revokeStanding(id: string): void;
  /** Opens the "Wrap servers…" flow of one agent client (closing any other). */
  openWrap(client: string): void;
  /** Closes the wrap flow; nothing is written. */
  cancelWrap(): void;
  /** Asks the runtime what wrapping the client's `servers` (every wrappable stdio entry when absent) under `policy` would change. */
  previewWrap(client: string, policy: string, servers?: readonly string[]): void;
  /** Applies the preview on screen, only while the runtime still computes the same plan; `servers` are the ones it was planned for. */
  applyWrap(servers?: readonly string[]): void;
  /** Restores the client's configuration from the backup of its wrap; one unwrap at a time. */
  unwrapClient(client: string): void;
  /**
   * Signs out every other cockpit tab and link (`cockpit.revokeSessions`); this session stays.
   * Resolves with the counts, or rejects with the runtime's message.
   */
  revokeSessions(): Promise<CockpitRevokeResult>;
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
  /** Browser notifications for new decisions; omitted in the desktop shell and in tests that do not notify. */
  notifications?: NotificationsPort | null;
  /** Where this tab keeps its conversation scope (sessionStorage); omitted, a reload opens a new conversation. */
  scopeStorage?: ScopeStorage | null;
}

/**
 * Wires transport, client and store together once, outside React (docs/architecture.md §4.7).
 * Every (re)connect reloads what the cockpit shows; a generation counter drops answers that
 * belong to a connection that has since been replaced.
 */
export function connectCockpit({ transport, store, window: win, notifications, scopeStorage = null }: CockpitDeps): Cockpit {
  const client = createClient(transport);
  let generation = 0;
  let verifyRequest = 0;
  const servers = refreshingLoader(
    {
      fetch: () => call('servers.list', {}).then((r) => r.servers),
      loading: () => store.getState().serversLoading(),
      loaded: (list) => store.getState().serversLoaded(list),
      failed: (error) => store.getState().serversFailed(describeError(error)),
    },
    SERVERS_REFRESH_DELAY_MS,
  );
  const standing = refreshingLoader(
    {
      fetch: () => call('approvals.listStanding', {}).then((r) => r.standing),
      loading: () => store.getState().standingLoading(),
      loaded: (list) => store.getState().standingLoaded(list),
      failed: (error) => store.getState().standingFailed(describeError(error)),
    },
    STANDING_REFRESH_DELAY_MS,
  );
  const clients = refreshingLoader(
    {
      fetch: () => call('clients.list', {}).then((r) => r.clients),
      loading: () => store.getState().clientsLoading(),
      loaded: (list) => store.getState().clientsLoaded(list),
      failed: (error) => store.getState().clientsFailed(describeError(error)),
    },
    CLIENTS_REFRESH_DELAY_MS,
  );
  /** Answers to a preview or apply of a flow that was since cancelled or replaced are dropped. */
  let wrapRequest = 0;
  /** Card ids seen since the cockpit opened; null until the first queue, which never notifies. */
  let seenCards: Set<string> | null = null;

  const call = <N extends CallName>(name: N, args: CallArgs<N>): Promise<CallResult<N>> => client.call(name, args);
  const storeSecret = async (name: string, value: string): Promise<void> => {
    if (!transport.storeSecret) {
      await call('secrets.store', { name, value });
      return;
    }
    const answer = await transport.storeSecret(name, value);
    if (!answer.ok) throw new ClientError(answer.error.code, answer.error.message);
  };
  const stream = connectStream({ call, storeSecret, store, storage: scopeStorage, generation: () => generation });
  const policies = connectPolicies({ call, store, page: win && !('silas' in win && win.silas) ? win : null });
  const alignment = connectAlignment({ call, store, notifications, openPage: () => navigate('alignment') });

  /**
   * A connect checks only what is new (`background`: the last verdict stays shown meanwhile);
   * the person's "Re-verify" checks everything, so an edit below the last verified entry is found.
   */
  function verifyChain(mode: VerifyMode = 'full', background = false): void {
    const request = ++verifyRequest;
    store.getState().chainVerifying(background);
    call('audit.verify', mode === 'full' ? { mode } : {}).then(
      (result) => {
        if (request === verifyRequest) store.getState().chainVerified(result);
      },
      (error: unknown) => {
        if (request === verifyRequest) store.getState().chainFailed(describeError(error));
      },
    );
  }

  function cancelVerify(): void {
    // The cancelled run's answer is an error, not a verdict on the chain: drop it.
    ++verifyRequest;
    const restore = () => loadVerifyStatus(generation);
    call('audit.cancelVerify', {}).then(restore, restore);
  }

  /** The runtime's last verdict at once (a runtime older than issue 11 has none: the run's answer brings it). */
  function loadVerifyStatus(current: number): void {
    call('audit.verifyStatus', {}).then(
      (status) => current === generation && store.getState().chainStatus(status),
      () => undefined,
    );
  }

  function reviewReplaced(queue: ReviewQueueView): void {
    store.getState().reviewReplaced(queue);
    notifyArrivals(queue.cards);
  }

  /** Cards not seen before raise a notification (none for what waits when the cockpit opens). */
  function notifyArrivals(cards: ReviewQueueView['cards']): void {
    const arrived = newArrivals(seenCards, cards);
    seenCards ??= new Set();
    for (const card of cards) seenCards.add(card.id);
    if (!notifications || notifications.permission() !== 'granted') return;
    for (const card of arrived) {
      const { title, body } = notificationText(card);
      notifications.show(title, body, `silas-review-${card.id}`, () => navigate('review'));
    }
  }

  /** The whole queue, a page at a time (the runtime's caps keep it to one or two pages). */
  function loadReview(): void {
    const current = generation;
    store.getState().reviewLoading();
    listReview().then(
      (queue) => current === generation && reviewReplaced(queue),
      (error: unknown) => current === generation && store.getState().reviewFailed(describeError(error)),
    );
  }

  /**
   * Every page of the queue as of one `seq`. Pages read while the queue changed are not one queue
   * (a card may have moved between pages), so a moved `seq` starts the listing again; after three
   * tries the listing is kept with no `seq`, so the next delta is a gap and lists again.
   */
  async function listReview(): Promise<ReviewQueueView> {
    for (let attempt = 1; ; attempt += 1) {
      const first = await call('review.list', {});
      const cards = [...first.cards];
      let moved = false;
      for (let page = 1; page < REVIEW_MAX_PAGES && first.total !== undefined && cards.length < first.total; page += 1) {
        const next = await call('review.list', { offset: cards.length });
        moved = next.seq !== first.seq;
        if (moved || next.cards.length === 0) break;
        cards.push(...next.cards);
      }
      if (!moved) return { ...first, cards };
      if (attempt === 3) return { ...first, cards, seq: -1 };
    }
  }

  /** One delta from the runtime; a missed one (a gap in `seq`) lists the queue again. */
  function reviewChanged(delta: ReviewQueueDelta): void {
    if (!store.getState().reviewDelta(delta)) {
      loadReview();
      return;
    }
    if (delta.added.length > 0) notifyArrivals(delta.added);
  }

  function decide(id: string, choice: string): void {
    if (store.getState().review.deciding !== null) return;
    const current = generation;
    store.getState().decisionSending(id);
    call('review.decide', { id, choice }).then(
      (result) => {
        store.getState().decisionSent(id);
        if (result.kind !== 'tool_change') return;
        // The Servers page shows the pin as trusted at once, then reloads what the runtime now shows.
        if (result.outcome === 'approved') store.getState().toolChangeAccepted(id, new Date().toISOString());
        if (current === generation) servers.load();
      },
      (error: unknown) => store.getState().decisionFailed(id, describeError(error)),
    );
  }

  function enableNotifications(): void {
    if (!notifications || notifications.permission() !== 'default') return;
    notifications.request().then((permission) => store.getState().setNotificationState(permission));
  }

  function revokeStanding(id: string): void {
    if (store.getState().standing.revoking !== null) return;
    const current = generation;
    store.getState().standingRevoking(id);
    call('approvals.revokeStanding', { id }).then(
      () => {
        store.getState().standingRevoked(id);
        if (current === generation) standing.load();
      },
      (error: unknown) => {
        store.getState().standingRevokeFailed(id, describeError(error));
        // It may have been revoked elsewhere meanwhile: show what the runtime holds now.
        if (current === generation) standing.load();
      },
    );
  }

  function openWrap(client: string): void {
    wrapRequest += 1;
    store.getState().wrapOpened(client);
  }

  function cancelWrap(): void {
    wrapRequest += 1;
    store.getState().wrapClosed();
  }

  /** The `servers` argument of clients.planWrap / clients.wrap: absent (every wrappable entry) unless some are named. */
  const serverArgs = (servers?: readonly string[]) => (servers && servers.length > 0 ? { servers: [...servers] } : {});

  function previewWrap(client: string, policy: string, servers?: readonly string[]): void {
    const flow = store.getState().clients.wrap;
    if (!flow || flow.client !== client || flow.phase === 'previewing' || flow.phase === 'applying') return;
    if (policy.trim() === '') {
      store.getState().wrapFailed(client, 'Give the policy file every wrapped server will run under.');
      return;
    }
    const request = ++wrapRequest;
    store.getState().wrapPreviewing(client, policy);
    call('clients.planWrap', { client, policy, ...serverArgs(servers) }).then(
      (plan) => request === wrapRequest && store.getState().wrapPreviewed(client, plan),
      (error: unknown) => request === wrapRequest && store.getState().wrapFailed(client, describeError(error)),
    );
  }

  function applyWrap(servers?: readonly string[]): void {
    const flow = store.getState().clients.wrap;
    if (!flow || flow.phase !== 'previewed' || !flow.plan || flow.plan.wrap.length === 0) return;
    const { client, plan } = flow;
    const label = store.getState().clients.clients.find((c) => c.client === client)?.label ?? client;
    const current = generation;
    const request = ++wrapRequest;
    store.getState().wrapApplying(client);
    call('clients.wrap', { client, policy: plan.policy, ...serverArgs(servers), expectedDiffHash: plan.diffHash }).then(
      (result) => {
        // Written: the outcome is shown even if the flow was closed meanwhile.
        const count = result.servers.length;
        store.getState().wrapApplied(client, `Wrapped ${count} ${count === 1 ? 'server' : 'servers'} in ${result.file}. Backup: ${result.backup}. Restart ${label} to use them.`);
        if (current === generation) clients.load();
      },
      (error: unknown) => {
        if (request === wrapRequest) store.getState().wrapFailed(client, describeError(error));
        if (current === generation) clients.load();
      },
    );
  }

  function unwrapClient(client: string): void {
    if (store.getState().clients.unwrapping !== null) return;
    const label = store.getState().clients.clients.find((c) => c.client === client)?.label ?? client;
    const current = generation;
    store.getState().unwrapStarted(client);
    call('clients.unwrap', { client }).then(
      (result) => {
        store.getState().unwrapDone(client, `Restored ${result.file} byte for byte from ${result.backup}. Restart ${label} to use its servers directly.`);
        if (current === generation) clients.load();
      },
      (error: unknown) => {
        store.getState().unwrapFailed(client, describeError(error));
        if (current === generation) clients.load();
      },
    );
  }

  function reload(): void {
    const current = ++generation;
    const state = store.getState();
    state.auditLoading();
    loadReview();
    stream.open(current);
    call('runtime.info', {}).then(
      (info) => current === generation && store.getState().runtimeLoaded(info),
      (error: unknown) => current === generation && store.getState().runtimeFailed(describeError(error)),
    );
    call('audit.list', { limit: AUDIT_PAGE_SIZE }).then(
      (page) => current === generation && store.getState().auditFirstPageLoaded(page),
      (error: unknown) => current === generation && store.getState().auditFailed(describeError(error)),
    );
    servers.load();
    clients.load();
    standing.load();
    policies.reload();
    alignment.reload();
    verifyChain('new', true);
    loadVerifyStatus(current);
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

  /**
   * Client configurations and policy files change outside Silas (the person edits them), so the
   * Servers and Policies pages read them again when opened.
   */
  function routeChanged(route: Route): void {
    const previous = store.getState().navigation.route;
    store.getState().setRoute(route);
    if (route === previous || transport.state !== 'connected') return;
    if (route === 'servers') clients.load();
    if (route === 'policies') policies.reload();
    if (route === 'alignment') alignment.opened();
  }

  function navigate(route: Route): void {
    routeChanged(route);
    const hash = routeHash(route);
    if (win && win.location.hash !== hash) win.history.pushState(null, '', hash);
  }

  const onHashChange = () => {
    if (win) routeChanged(parseRoute(win.location.hash));
  };
  win?.addEventListener('hashchange', onHashChange);

  const offEvent = transport.onEvent((name, payload) => {
    if (name === 'audit.appended') {
      const entry = events['audit.appended'].payload.safeParse(payload);
      if (entry.success) {
        store.getState().auditAppended(entry.data);
        if (affectsServers(entry.data.event)) servers.schedule();
        if (affectsStanding(entry.data.event)) standing.schedule();
        if (affectsClients(entry.data.event)) clients.schedule();
        if (affectsPolicies(entry.data.event)) policies.schedule();
        alignment.entry(entry.data);
      }
    } else if (name === 'review.changed') {
      const delta = events['review.changed'].payload.safeParse(payload);
      if (delta.success) reviewChanged(delta.data);
    } else if (name === 'audit.verifyProgress') {
      const run = events['audit.verifyProgress'].payload.safeParse(payload);
      if (run.success) store.getState().chainProgress(run.data);
    } else if (name === 'stream.event') {
      stream.event(payload);
    } else if (name === 'audit.verified') {
      const status = events['audit.verified'].payload.safeParse(payload);
      if (status.success) store.getState().chainStatus(status.data);
    }
  });

  const offState = transport.onState((state) => {
    store.getState().setConnection(state);
    if (state === 'connected') reload();
  });

  store.getState().setConnection(transport.state);
  store.getState().setNotificationState(notifications ? notifications.permission() : 'unsupported');
  if (transport.state === 'connected') reload();

  return {
    actions: {
      loadOlderAudit,
      verifyChain: (mode?: VerifyMode) => verifyChain(mode),
      cancelVerify,
      navigate,
      decide,
      enableNotifications,
      revokeStanding,
      openWrap,
      cancelWrap,
      previewWrap,
      applyWrap,
      unwrapClient,
      revokeSessions: () => call('cockpit.revokeSessions', {}),
      ...stream.actions,
      ...policies.actions,
      ...alignment.actions,
    },
    dispose: () => {
      servers.cancel();
      standing.cancel();
      clients.cancel();
      policies.dispose();
      alignment.dispose();
      wrapRequest += 1;
      offEvent();
      offState();
      win?.removeEventListener('hashchange', onHashChange);
      generation += 1;
      transport.close();
    },
  };
}
