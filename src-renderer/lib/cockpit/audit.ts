import type { VerifyMode } from '../../../src-shared/schemas/audit.js';
import { describeError } from '../client.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';

/** Page size for the audit log: large enough that scrolling rarely waits, well under AUDIT_PAGE_MAX. */
export const AUDIT_PAGE_SIZE = 500;

/** What the Activity page may ask for. */
export interface AuditActions {
  loadOlderAudit(): void;
  /** Verifies the chain in the runtime's worker: `full` (the default, what the person asks for) or only what is `new`. */
  verifyChain(mode?: VerifyMode): void;
  /** Stops the verification in progress; the last verdict stays. */
  cancelVerify(): void;
}

/**
 * The Activity page's side of the wiring (docs/architecture.md §4.7): the audit log a page at a
 * time, every new entry at its head, and the chain's verification.
 */
export function connectAudit({ call, store, generation }: FeatureDeps): FeatureWiring<AuditActions> {
  const state = () => store.getState();
  /** Only the newest verification's answer lands. */
  let verifyRequest = 0;

  /**
   * A connect checks only what is new (`background`: the last verdict stays shown meanwhile);
   * the person's "Re-verify" checks everything, so an edit below the last verified entry is found.
   */
  function verifyChain(mode: VerifyMode = 'full', background = false): void {
    const request = ++verifyRequest;
    state().chainVerifying(background);
    call('audit.verify', mode === 'full' ? { mode } : {}).then(
      (result) => {
        if (request === verifyRequest) state().chainVerified(result);
      },
      (error: unknown) => {
        if (request === verifyRequest) state().chainFailed(describeError(error));
      },
    );
  }

  function cancelVerify(): void {
    // The cancelled run's answer is an error, not a verdict on the chain: drop it.
    ++verifyRequest;
    const restore = () => loadVerifyStatus(generation());
    call('audit.cancelVerify', {}).then(restore, restore);
  }

  /** The runtime's last verdict at once (a runtime older than `audit.verifyStatus` has none: the run's answer brings it). */
  function loadVerifyStatus(current: number): void {
    call('audit.verifyStatus', {}).then(
      (status) => current === generation() && state().chainStatus(status),
      () => undefined,
    );
  }

  function loadOlderAudit(): void {
    const audit = state().audit;
    const oldest = audit.entries[audit.entries.length - 1];
    if (audit.status !== 'ready' || audit.loadingMore || !audit.hasMore || !oldest) return;
    const current = generation();
    state().auditOlderLoading();
    call('audit.list', { before: oldest.index, limit: AUDIT_PAGE_SIZE }).then(
      (page) => current === generation() && state().auditOlderPageLoaded(page),
      (error: unknown) => current === generation() && state().auditOlderFailed(describeError(error)),
    );
  }

  return {
    reload() {
      const current = generation();
      state().auditLoading();
      call('audit.list', { limit: AUDIT_PAGE_SIZE }).then(
        (page) => current === generation() && state().auditFirstPageLoaded(page),
        (error: unknown) => current === generation() && state().auditFailed(describeError(error)),
      );
      verifyChain('new', true);
      loadVerifyStatus(current);
    },
    entry: (entry) => state().auditAppended(entry),
    events: {
      'audit.verifyProgress': (run) => state().chainProgress(run),
      'audit.verified': (status) => state().chainStatus(status),
    },
    actions: { loadOlderAudit, verifyChain: (mode) => verifyChain(mode), cancelVerify },
    dispose: () => undefined,
  };
}
