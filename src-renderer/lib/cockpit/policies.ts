import { ErrorCode } from '../../../src-shared/errors.js';
import { replayResult, suiteResult, tryResult } from '../../store/policy-bench-rows.js';
import { hasUnsavedDraft, saveBlockReason, savedMessage } from '../../store/policy-editor-state.js';
import { affectsPolicies } from '../../store/policy-editor-slice.js';
import { describeError, isClientError } from '../client.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';
import { connectPolicyForm, type PolicyFormActions } from './policy-form.js';
import { connectPolicyGallery, type PolicyGalleryActions } from './policy-gallery.js';
import { refreshingLoader } from '../refreshing-loader.js';

/** Quiet time after the last keystroke before the draft is sent to `policies.validate`. */
export const VALIDATE_DELAY_MS = 250;

/** The list of policies is reloaded once per burst of `policies.saved` events. */
export const POLICIES_REFRESH_DELAY_MS = 300;

/** What the Policies page's editor may ask for. */
export interface PolicyActions extends PolicyFormActions, PolicyGalleryActions {
  /**
   * Reads a policy into the editor (replacing the one open), checks it and loads its history. An
   * unsaved draft is not dropped without the person's word: `discard` asks first.
   */
  openPolicy(path: string): void;
  /** Closes the editor; an unsaved draft is asked about first, as for openPolicy. */
  closePolicy(): void;
  /** Answers the question about an unsaved draft: drop it and go on, or keep editing. */
  settleDiscard(drop: boolean): void;
  /** The person typed: the draft is checked by the runtime after VALIDATE_DELAY_MS of quiet. */
  editPolicy(text: string): void;
  /** Signs and writes the draft, only when nothing blocks it (saveBlockReason). */
  savePolicy(): void;
  /** Reads the file again into the editor (after a conflict); the draft it replaces is set aside. */
  reloadPolicy(): void;
  /** Puts the draft a reload set aside back into the editor. */
  bringBackDraft(): void;
  /** Signs a policy changed outside the cockpit as it is. */
  adoptPolicy(path: string): void;
  /** Writes the last saved version of a policy changed outside the cockpit back over it. */
  revertPolicy(path: string): void;
  tryPolicyCall(tool: string, args: Record<string, unknown>): void;
  replayPolicyCalls(server: string, last: number): void;
  runPolicySuite(): void;
  /** Loads a saved version's text to diff against the editor's. */
  showPolicyDiff(id: number): void;
  hidePolicyDiff(): void;
  /** Diffs the open diff's version against another saved version, or (null) the editor's draft again. */
  compareDiffWith(id: number | null): void;
  restorePolicyVersion(id: number): void;
}

export interface PolicyWiringDeps extends FeatureDeps {
  /**
   * The browser tab, whose reload or close would lose an unsaved draft: it is asked to warn. Null
   * in the desktop window, which hides rather than closes and keeps the draft.
   */
  page?: Pick<Window, 'addEventListener' | 'removeEventListener'> | null;
}

/**
 * The Policies editor's side of the wiring (docs/architecture.md §4.7). Each kind of request has
 * its own counter so that only the newest answer lands: a late validation of older text, a bench
 * run for a policy since closed, a history of another file.
 */
export function connectPolicies({ call, store, page = null }: PolicyWiringDeps): FeatureWiring<PolicyActions> {
  const state = () => store.getState();
  const editor = () => state().policyEditor;
  let validateTimer: ReturnType<typeof setTimeout> | null = null;
  let validateRequest = 0;
  let openRequest = 0;
  let benchRequest = 0;
  let historyRequest = 0;

  const list = refreshingLoader(
    {
      fetch: () => call('policies.list', {}).then((r) => r.policies),
      loading: () => state().policiesLoading(),
      loaded: (policies) => state().policiesLoaded(policies),
      failed: (error) => state().policiesFailed(describeError(error)),
    },
    POLICIES_REFRESH_DELAY_MS,
  );

  function clearValidateTimer(): void {
    if (validateTimer !== null) clearTimeout(validateTimer);
    validateTimer = null;
  }

  function validateNow(): void {
    clearValidateTimer();
    const open = editor().open;
    if (!open) return;
    const text = open.draft;
    const request = ++validateRequest;
    state().policyValidating();
    call('policies.validate', { text }).then(
      (result) => request === validateRequest && state().policyValidated({ text, ok: result.ok, diagnostics: result.diagnostics, hash: result.hash, tookMs: result.took_ms }),
      (error: unknown) => request === validateRequest && state().policyValidateFailed(describeError(error)),
    );
  }

  function loadHistory(path: string): void {
    if (editor().open?.path !== path) return;
    const request = ++historyRequest;
    state().policyHistoryLoading();
    call('policies.history', { path }).then(
      (result) => request === historyRequest && state().policyHistoryLoaded(path, result.versions),
      (error: unknown) => request === historyRequest && state().policyHistoryFailed(path, describeError(error)),
    );
  }

  /** Reads the open file again (after a write, or on Reload); a draft the read replaces is checked again. */
  function reread(path: string, options: { replace: boolean; unchangedFrom?: string; setAside?: boolean }, failure: string): void {
    if (editor().open?.path !== path) return;
    call('policies.read', { path }).then(
      (read) => {
        const before = editor().open?.revision;
        state().policyReread(path, read, options);
        if (editor().open?.revision !== before) validateNow();
      },
      (error: unknown) => state().policySaveFailed(path, `${failure}: ${describeError(error)}`),
    );
  }

  /** After a write: the list, the history and the editor's text catch up with the file. */
  function written(path: string, options: { replace: boolean; unchangedFrom?: string }): void {
    list.load();
    loadHistory(path);
    reread(path, options, 'Written, but could not read the file back');
  }

  /** Resolves true when `path` was read into the editor (false: it failed, or a newer open won). */
  function openPolicy(path: string): Promise<boolean> {
    const request = ++openRequest;
    state().policyOpening(path);
    return call('policies.read', { path }).then(
      (read) => {
        if (request !== openRequest) return false;
        const switched = editor().open?.path !== path;
        if (switched) benchRequest += 1;
        state().policyOpened(path, read);
        validateNow();
        loadHistory(path);
        return true;
      },
      (error: unknown) => {
        if (request === openRequest) state().policyOpenFailed(path, describeError(error));
        return false;
      },
    );
  }

  /** What settleDiscard runs; a newer question answers the older one "keep editing". */
  let pendingDiscard: ((drop: boolean) => void) | null = null;

  /** Runs `go` at once when nothing unsaved is in the editor; otherwise asks, and runs `go` or `stay` on the answer. */
  function whenDraftMayGo(next: string | null, go: () => void, stay: () => void = () => undefined): void {
    if (!hasUnsavedDraft(editor())) return go();
    pendingDiscard?.(false);
    pendingDiscard = (drop) => (drop ? go() : stay());
    state().policyDiscardAsked(next);
  }

  function settleDiscard(drop: boolean): void {
    const answer = pendingDiscard;
    pendingDiscard = null;
    state().policyDiscardSettled();
    answer?.(drop);
  }

  const openPolicyOnWord = (path: string): Promise<boolean> =>
    new Promise((resolve) => whenDraftMayGo(path, () => void openPolicy(path).then(resolve), () => resolve(false)));

  function closePolicy(): void {
    openRequest += 1;
    validateRequest += 1;
    benchRequest += 1;
    historyRequest += 1;
    clearValidateTimer();
    state().policyClosed();
  }

  function editPolicy(text: string): void {
    if (!editor().open || editor().open?.draft === text) return;
    state().policyDraftEdited(text);
    clearValidateTimer();
    validateTimer = setTimeout(validateNow, VALIDATE_DELAY_MS);
  }

  function savePolicy(): void {
    const open = editor().open;
    if (!open || saveBlockReason(editor()) !== null) return;
    const { path, draft: text, baseSha256 } = open;
    state().policySaving();
    call('policies.save', { path, text, expected_sha256: baseSha256 }).then(
      (saved) => {
        state().policySaved(path, text, saved, savedMessage(saved.version));
        written(path, { replace: false, unchangedFrom: text });
      },
      (error: unknown) => {
        if (isClientError(error) && error.code === ErrorCode.Conflict) state().policySaveConflicted(path, describeError(error));
        else state().policySaveFailed(path, describeError(error));
      },
    );
  }

  function reloadPolicy(): void {
    const open = editor().open;
    if (!open) return;
    reread(open.path, { replace: true, setAside: true }, 'Could not reload the file');
    loadHistory(open.path);
    list.load();
  }

  function bringBackDraft(): void {
    state().policySetAsideRestored();
    validateNow();
  }

  function fileAction(path: string, kind: 'adopt' | 'revert', run: () => Promise<string>): void {
    if (editor().fileAction !== null) return;
    state().policyFileActionStarted(path, kind);
    run().then(
      (message) => {
        state().policyFileActionDone(path, message, false);
        written(path, { replace: false });
      },
      (error: unknown) => {
        state().policyFileActionDone(path, describeError(error), true);
        list.load();
      },
    );
  }

  const adoptPolicy = (path: string) => fileAction(path, 'adopt', () => call('policies.adopt', { path }).then((saved) => savedMessage(saved.version)));

  const revertPolicy = (path: string) =>
    fileAction(path, 'revert', async () => {
      const [latest] = (await call('policies.history', { path, limit: 1 })).versions;
      if (!latest) throw new Error('There is no saved version to revert to; adopt the file as it is, or edit it');
      const saved = await call('policies.restore', { id: latest.id });
      return `Reverted to version ${latest.seq} (now version ${saved.version.seq}, signed)`;
    });

  /** Runs one bench request against the draft in the editor; only the newest run's answer lands. */
  function bench<T>(kind: 'try' | 'replay' | 'suite', run: (text: string, path: string) => Promise<T>, done: (result: T) => void): void {
    const open = editor().open;
    if (!open) return;
    const request = ++benchRequest;
    state().policyBenchStarted(kind);
    run(open.draft, open.path).then(
      (result) => request === benchRequest && done(result),
      (error: unknown) => request === benchRequest && state().policyBenchFailed(describeError(error)),
    );
  }

  function showPolicyDiff(id: number): void {
    state().policyDiffLoading(id);
    call('policies.version', { id }).then(
      (result) => state().policyDiffLoaded({ id, seq: result.version.seq, text: result.text }),
      (error: unknown) => state().policyDiffFailed(id, describeError(error)),
    );
  }

  function compareDiffWith(id: number | null): void {
    if (id === null) return state().policyDiffAgainstDraft();
    state().policyDiffAgainstLoading(id);
    call('policies.version', { id }).then(
      (result) => state().policyDiffAgainstLoaded({ id, seq: result.version.seq, text: result.text }),
      (error: unknown) => state().policyDiffAgainstFailed(id, describeError(error)),
    );
  }

  function restorePolicyVersion(id: number): void {
    const { open, history } = editor();
    if (!open || history.restoring !== null) return;
    const seq = history.versions.find((version) => version.id === id)?.seq;
    state().policyRestoring(id);
    call('policies.restore', { id }).then(
      (saved) => {
        state().policyRestored(id, savedMessage(saved.version, seq));
        written(open.path, { replace: true });
      },
      (error: unknown) => state().policyRestoreFailed(id, describeError(error)),
    );
  }

  /** The browser shows its own "leave site?" question; the text of it is not ours to set. */
  function warnBeforeUnload(event: BeforeUnloadEvent): void {
    if (hasUnsavedDraft(editor())) event.preventDefault();
  }
  page?.addEventListener('beforeunload', warnBeforeUnload);

  const form = connectPolicyForm({ call, store, openPolicy: openPolicyOnWord, validateNow });
  const gallery = connectPolicyGallery({ call, store, openPolicy: openPolicyOnWord, reloadList: () => list.load() });

  /** The list, and the open policy's history. */
  function reload(): void {
    list.load();
    const open = editor().open;
    if (open) loadHistory(open.path);
  }

  return {
    reload,
    /** The list is reloaded once per burst of saves. */
    entry(entry) {
      if (affectsPolicies(entry.event)) list.schedule();
    },
    // Policy files change outside Silas (the person edits them): the page reads them again when opened.
    opened: { policies: reload },
    actions: {
      openPolicy: (path) => whenDraftMayGo(path, () => void openPolicy(path)),
      closePolicy: () => whenDraftMayGo(null, closePolicy),
      settleDiscard,
      editPolicy,
      savePolicy,
      reloadPolicy,
      bringBackDraft,
      adoptPolicy,
      revertPolicy,
      tryPolicyCall: (tool, args) => bench('try', (text, path) => call('policies.try', { text, path, call: { tool, args } }), (r) => state().policyBenchDone(tryResult(tool, args, r))),
      replayPolicyCalls: (server, last) => bench('replay', (text, path) => call('policies.replay', { text, path, server, last }), (r) => state().policyBenchDone(replayResult(r))),
      runPolicySuite: () => bench('suite', (text, path) => call('policies.suite', { text, path }), (r) => state().policyBenchDone(suiteResult(r))),
      showPolicyDiff,
      hidePolicyDiff: () => state().policyDiffClosed(),
      compareDiffWith,
      restorePolicyVersion,
      ...form.actions,
      ...gallery.actions,
    },
    dispose() {
      page?.removeEventListener('beforeunload', warnBeforeUnload);
      settleDiscard(false);
      form.dispose();
      list.cancel();
      clearValidateTimer();
      validateRequest += 1;
      openRequest += 1;
      benchRequest += 1;
      historyRequest += 1;
    },
  };
}
