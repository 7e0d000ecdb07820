import { affectsClients } from '../../store/clients-slice.js';
import { describeError } from '../client.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';
import { refreshingLoader } from '../refreshing-loader.js';

/** Agent clients are reloaded once per burst of wrap/unwrap events. */
export const CLIENTS_REFRESH_DELAY_MS = 300;

/** What the Servers page's agent clients section may ask for. */
export interface ClientsActions {
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
}

/** The `servers` argument of clients.planWrap / clients.wrap: absent (every wrappable entry) unless some are named. */
const serverArgs = (servers?: readonly string[]) => (servers && servers.length > 0 ? { servers: [...servers] } : {});

/**
 * The agent clients and their wrap flow (docs/architecture.md §4.7). Client configurations change
 * outside Silas (the person edits them), so they are read again whenever the Servers page opens.
 */
export function connectClients({ call, store, generation }: FeatureDeps): FeatureWiring<ClientsActions> {
  const state = () => store.getState();
  const clients = refreshingLoader(
    {
      fetch: () => call('clients.list', {}).then((r) => r.clients),
      loading: () => state().clientsLoading(),
      loaded: (list) => state().clientsLoaded(list),
      failed: (error) => state().clientsFailed(describeError(error)),
    },
    CLIENTS_REFRESH_DELAY_MS,
  );
  /** Answers to a preview or apply of a flow that was since cancelled or replaced are dropped. */
  let wrapRequest = 0;
  const labelOf = (client: string) => state().clients.clients.find((c) => c.client === client)?.label ?? client;

  function openWrap(client: string): void {
    wrapRequest += 1;
    state().wrapOpened(client);
  }

  function cancelWrap(): void {
    wrapRequest += 1;
    state().wrapClosed();
  }

  function previewWrap(client: string, policy: string, servers?: readonly string[]): void {
    const flow = state().clients.wrap;
    if (!flow || flow.client !== client || flow.phase === 'previewing' || flow.phase === 'applying') return;
    if (policy.trim() === '') {
      state().wrapFailed(client, 'Give the policy file every wrapped server will run under.');
      return;
    }
    const request = ++wrapRequest;
    state().wrapPreviewing(client, policy);
    call('clients.planWrap', { client, policy, ...serverArgs(servers) }).then(
      (plan) => request === wrapRequest && state().wrapPreviewed(client, plan),
      (error: unknown) => request === wrapRequest && state().wrapFailed(client, describeError(error)),
    );
  }

  function applyWrap(servers?: readonly string[]): void {
    const flow = state().clients.wrap;
    if (!flow || flow.phase !== 'previewed' || !flow.plan || flow.plan.wrap.length === 0) return;
    const { client, plan } = flow;
    const label = labelOf(client);
    const current = generation();
    const request = ++wrapRequest;
    state().wrapApplying(client);
    call('clients.wrap', { client, policy: plan.policy, ...serverArgs(servers), expectedDiffHash: plan.diffHash }).then(
      (result) => {
        // Written: the outcome is shown even if the flow was closed meanwhile.
        const count = result.servers.length;
        state().wrapApplied(client, `Wrapped ${count} ${count === 1 ? 'server' : 'servers'} in ${result.file}. Backup: ${result.backup}. Restart ${label} to use them.`);
        if (current === generation()) clients.load();
      },
      (error: unknown) => {
        if (request === wrapRequest) state().wrapFailed(client, describeError(error));
        if (current === generation()) clients.load();
      },
    );
  }

  function unwrapClient(client: string): void {
    if (state().clients.unwrapping !== null) return;
    const label = labelOf(client);
    const current = generation();
    state().unwrapStarted(client);
    call('clients.unwrap', { client }).then(
      (result) => {
        state().unwrapDone(client, `Restored ${result.file} byte for byte from ${result.backup}. Restart ${label} to use its servers directly.`);
        if (current === generation()) clients.load();
      },
      (error: unknown) => {
        state().unwrapFailed(client, describeError(error));
        if (current === generation()) clients.load();
      },
    );
  }

  return {
    reload: () => clients.load(),
    entry(entry) {
      if (affectsClients(entry.event)) clients.schedule();
    },
    opened: { servers: () => clients.load() },
    actions: { openWrap, cancelWrap, previewWrap, applyWrap, unwrapClient },
    dispose() {
      clients.cancel();
      wrapRequest += 1;
    },
  };
}
