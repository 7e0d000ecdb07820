import type { CallResult } from '../../src-shared/contract/index.js';
import type { BenchKind, BenchResult } from './policy-bench-rows.js';
import { initialGallery, type PolicyGalleryState } from './policy-gallery-state.js';

/*
 * The Policies page's editor (docs/policy-editor.md): the policies of this installation, the one
 * open in the editor with its draft, the runtime's diagnostics for it, saving, the test bench and
 * the history. Pure reducers over one state object; policy-editor-slice.ts puts them in the store
 * and lib/cockpit/policies.ts does the I/O.
 */

export type PolicyFileStatus = CallResult<'policies.list'>['policies'][number];
export type PolicyVersion = CallResult<'policies.history'>['versions'][number];
export type PolicyDiagnostic = CallResult<'policies.validate'>['diagnostics'][number];
export type PolicySaved = CallResult<'policies.save'>;
export type PolicyRead = CallResult<'policies.read'>;
type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

interface OpenPolicy {
  path: string;
  status: PolicyFileStatus;
  /** The file's text as read, or as last saved (signed): the draft is "unchanged" while equal to it. */
  savedText: string;
  /** The file's SHA-256 when read: a save refuses to overwrite a file changed since. */
  baseSha256: string | null;
  draft: string;
  /** Bumped whenever the draft is replaced from outside the editor (read, reload, restore), so the editor takes the new text. */
  revision: number;
  /** The person's draft set aside by a reload after a conflict, until brought back or edited over. */
  setAside: string | null;
}

/** The runtime's verdict on one text of the draft. */
export interface PolicyValidation {
  text: string;
  ok: boolean;
  diagnostics: readonly PolicyDiagnostic[];
  hash: string | null;
  tookMs: number;
}

type SavePhase = 'idle' | 'saving' | 'saved' | 'conflict' | 'error';

/** The form view's last change (`policies.edit`): on its way, its notes, or why it failed. */
interface PolicyFormState {
  pending: boolean;
  notes: readonly string[];
  error: string | null;
}

/** A saved version's text, as `policies.version` returned it. */
export interface VersionText {
  id: number;
  seq: number;
  text: string;
}

export interface PolicyEditorState {
  policies: readonly PolicyFileStatus[];
  listStatus: LoadStatus;
  listError: string | null;
  /** An adopt or revert from the list on its way; one at a time. */
  fileAction: { path: string; kind: 'adopt' | 'revert' } | null;
  /** The outcome of the last adopt or revert, shown beside that policy. */
  fileMessage: { path: string; kind: 'adopt' | 'revert'; text: string; error: boolean } | null;
  /** The path being read into the editor. */
  opening: string | null;
  /**
   * An unsaved draft about to be dropped, waiting for the person's word: `next` is the policy
   * that would replace it, or null when the editor would close.
   */
  discard: { path: string; next: string | null } | null;
  openError: string | null;
  open: OpenPolicy | null;
  validation: PolicyValidation | null;
  validating: boolean;
  validateError: string | null;
  save: { phase: SavePhase; message: string | null };
  bench: { running: BenchKind | null; result: BenchResult | null; error: string | null };
  form: PolicyFormState;
  /** The template gallery: it lives beside the list, whichever policy is open. */
  gallery: PolicyGalleryState;
  history: {
    versions: readonly PolicyVersion[];
    status: LoadStatus;
    error: string | null;
    /** The version being restored; one restore at a time. */
    restoring: number | null;
    /** The version whose text is diffed (−), against the editor's draft or `against` (+). */
    diff: VersionText | null;
    diffLoading: number | null;
    /** The other version of a diff between two saved versions; null diffs against the editor's draft. */
    against: VersionText | null;
    againstLoading: number | null;
  };
}

const initialBench: PolicyEditorState['bench'] = { running: null, result: null, error: null };
const initialHistory: PolicyEditorState['history'] = { versions: [], status: 'idle', error: null, restoring: null, diff: null, diffLoading: null, against: null, againstLoading: null };
const idleSave: PolicyEditorState['save'] = { phase: 'idle', message: null };
const idleForm: PolicyFormState = { pending: false, notes: [], error: null };

export const initialPolicyEditor: PolicyEditorState = {
  policies: [],
  listStatus: 'idle',
  listError: null,
  fileAction: null,
  fileMessage: null,
  opening: null,
  discard: null,
  openError: null,
  open: null,
  validation: null,
  validating: false,
  validateError: null,
  save: idleSave,
  bench: initialBench,
  form: idleForm,
  gallery: initialGallery,
  history: initialHistory,
};

type S = PolicyEditorState;

/** Applies `fn` to the open policy when it is `path`; otherwise the state stays as it is. */
function withOpen(s: S, path: string, fn: (open: OpenPolicy) => Partial<S>): S {
  return s.open && s.open.path === path ? { ...s, ...fn(s.open) } : s;
}

export const listLoading = (s: S): S => ({ ...s, listStatus: s.listStatus === 'ready' ? 'ready' : 'loading', listError: null });
export const listLoaded = (s: S, policies: readonly PolicyFileStatus[]): S => ({
  ...s,
  policies,
  listStatus: 'ready',
  listError: null,
  // The list is the fresher word on the open file's signature and outside edits.
  open: s.open ? { ...s.open, status: policies.find((p) => p.path === s.open!.path) ?? s.open.status } : null,
});
export const listFailed = (s: S, message: string): S => ({ ...s, listStatus: s.listStatus === 'ready' ? 'ready' : 'error', listError: message });

export const fileActionStarted = (s: S, path: string, kind: 'adopt' | 'revert'): S => ({ ...s, fileAction: { path, kind }, fileMessage: null });
export const fileActionDone = (s: S, path: string, text: string, error: boolean): S => ({
  ...s,
  fileAction: null,
  fileMessage: { path, kind: s.fileAction?.kind ?? 'adopt', text, error },
});

/** True while the editor holds text that no save has kept: opening another policy or closing would lose it. */
export function hasUnsavedDraft(s: S): boolean {
  return s.open !== null && (s.open.draft !== s.open.savedText || s.open.setAside !== null);
}

export const discardAsked = (s: S, next: string | null): S => (s.open ? { ...s, discard: { path: s.open.path, next } } : s);
export const discardSettled = (s: S): S => (s.discard ? { ...s, discard: null } : s);

export const policyOpening = (s: S, path: string): S => ({ ...s, opening: path, openError: null });
export const policyOpenFailed = (s: S, path: string, message: string): S => (s.opening === path ? { ...s, opening: null, openError: message } : s);

/** A policy read into the editor: a fresh draft, with the bench, history and save outcome of another file cleared. */
export function policyOpened(s: S, path: string, read: PolicyRead): S {
  const revision = (s.open?.revision ?? 0) + 1;
  const same = s.open?.path === path;
  return {
    ...s,
    opening: s.opening === path ? null : s.opening,
    discard: null,
    openError: null,
    open: { path, status: read.status, savedText: read.text, baseSha256: read.status.textSha256, draft: read.text, revision, setAside: null },
    validation: same ? s.validation : null,
    validateError: null,
    save: idleSave,
    bench: same ? s.bench : initialBench,
    form: same ? s.form : idleForm,
    history: same ? s.history : initialHistory,
  };
}

export const policyClosed = (s: S): S => ({ ...s, open: null, opening: null, discard: null, validation: null, validating: false, validateError: null, save: idleSave, bench: initialBench, form: idleForm, history: initialHistory });

/** The person typed: the draft changes, a draft set aside is let go, and a save outcome other than a conflict is no longer news. */
export function draftEdited(s: S, text: string): S {
  if (!s.open || s.open.draft === text) return s;
  const save = s.save.phase === 'saving' || s.save.phase === 'conflict' ? s.save : idleSave;
  return { ...s, open: { ...s.open, draft: text, setAside: null }, save };
}

export const formStarted = (s: S): S => ({ ...s, form: { pending: true, notes: [], error: null } });
export const formFailed = (s: S, message: string): S => ({ ...s, form: { pending: false, notes: [], error: message } });

/**
 * The runtime applied a form change to the draft of `path`: the new text goes in as an edit would
 * (a draft set aside is let go), and the revision moves so that the editor shows it.
 */
export function formApplied(s: S, path: string, text: string, notes: readonly string[]): S {
  if (s.open?.path !== path) return s;
  const edited = draftEdited(s, text);
  const open = edited === s ? s.open : { ...edited.open!, revision: s.open.revision + 1 };
  return { ...edited, open, form: { pending: false, notes, error: null } };
}

export const validationStarted = (s: S): S => ({ ...s, validating: true });
export const validated = (s: S, validation: PolicyValidation): S => ({ ...s, validation, validating: false, validateError: null });
export const validationFailed = (s: S, message: string): S => ({ ...s, validating: false, validateError: message });

export const saveStarted = (s: S): S => ({ ...s, save: { phase: 'saving', message: null } });

/** Saved and signed: the saved draft is the new baseline (until the signed text is read back). */
export const saveSucceeded = (s: S, path: string, text: string, saved: PolicySaved, message: string): S =>
  withOpen(s, path, (open) => ({ open: { ...open, status: saved.status, savedText: text, baseSha256: saved.status.textSha256 }, save: { phase: 'saved', message } }));

export const saveConflicted = (s: S, path: string, message: string): S => withOpen(s, path, () => ({ save: { phase: 'conflict', message } }));
export const saveFailed = (s: S, path: string, message: string): S => withOpen(s, path, () => ({ save: { phase: 'error', message } }));

/**
 * The file read again after it was written (save, adopt, restore) or on Reload. `replace`: the
 * editor shows the file; otherwise the draft is kept unless it is still `unchangedFrom` (the text
 * the person saved, now signed on disk). A reload keeps the draft it replaces aside.
 */
export function policyReread(s: S, path: string, read: PolicyRead, options: { replace: boolean; unchangedFrom?: string; setAside?: boolean }): S {
  return withOpen(s, path, (open) => {
    const replace = options.replace || open.draft === options.unchangedFrom || open.draft === open.savedText;
    const base = { ...open, status: read.status, savedText: read.text, baseSha256: read.status.textSha256 };
    if (!replace) return { open: base };
    const setAside = options.setAside && open.draft !== read.text ? open.draft : null;
    const save = s.save.phase === 'conflict' ? idleSave : s.save;
    return { open: { ...base, draft: read.text, revision: open.revision + 1, setAside }, save };
  });
}

/** The draft a reload set aside goes back into the editor, to be saved over the file as it now is. */
export const setAsideRestored = (s: S): S =>
  s.open?.setAside == null ? s : { ...s, open: { ...s.open, draft: s.open.setAside, revision: s.open.revision + 1, setAside: null } };

export const benchStarted = (s: S, kind: BenchKind): S => ({ ...s, bench: { ...s.bench, running: kind, error: null } });
export const benchDone = (s: S, result: BenchResult): S => ({ ...s, bench: { running: null, result, error: null } });
export const benchFailed = (s: S, message: string): S => ({ ...s, bench: { ...s.bench, running: null, error: message } });

const history = (s: S, patch: Partial<S['history']>): S => ({ ...s, history: { ...s.history, ...patch } });
export const historyLoading = (s: S): S => history(s, { status: s.history.status === 'ready' ? 'ready' : 'loading', error: null });
export const historyLoaded = (s: S, path: string, versions: readonly PolicyVersion[]): S =>
  s.open?.path === path ? history(s, { versions, status: 'ready', error: null }) : s;
export const historyFailed = (s: S, path: string, message: string): S =>
  s.open?.path === path ? history(s, { status: s.history.status === 'ready' ? 'ready' : 'error', error: message }) : s;
/** A new diff starts against the editor's draft; another version can then be chosen to compare with. */
export const diffLoading = (s: S, id: number): S => history(s, { diffLoading: id, error: null, against: null, againstLoading: null });
export const diffLoaded = (s: S, diff: VersionText): S => (s.history.diffLoading === diff.id ? history(s, { diff, diffLoading: null }) : s);
export const diffFailed = (s: S, id: number, message: string): S => (s.history.diffLoading === id ? history(s, { diffLoading: null, error: message }) : s);
export const diffClosed = (s: S): S => history(s, { diff: null, diffLoading: null, against: null, againstLoading: null });
export const againstLoading = (s: S, id: number): S => (s.history.diff ? history(s, { againstLoading: id, error: null }) : s);
export const againstLoaded = (s: S, against: VersionText): S => (s.history.againstLoading === against.id ? history(s, { against, againstLoading: null }) : s);
export const againstFailed = (s: S, id: number, message: string): S => (s.history.againstLoading === id ? history(s, { againstLoading: null, error: message }) : s);
export const againstDraft = (s: S): S => history(s, { against: null, againstLoading: null });
export const restoreStarted = (s: S, id: number): S => ({ ...history(s, { restoring: id, error: null }), save: idleSave });
export const restoreDone = (s: S, id: number, message: string): S => ({ ...history(s, { restoring: s.history.restoring === id ? null : s.history.restoring }), save: { phase: 'saved', message } });
export const restoreFailed = (s: S, id: number, message: string): S => history(s, { restoring: s.history.restoring === id ? null : s.history.restoring, error: message });

/** The problems that stop a save: errors, not warnings. */
export function errorCount(diagnostics: readonly PolicyDiagnostic[]): number {
  return diagnostics.filter((d) => d.severity === 'error').length;
}

/** The runtime's verdict on exactly the text in the editor; null while that text has not been checked. */
export function currentValidation(s: S): PolicyValidation | null {
  return s.open && s.validation && s.validation.text === s.open.draft ? s.validation : null;
}

/** Where the loader reports a signature it cannot verify. */
export const SIGNATURE_PATH = 'metadata.signature';

/**
 * Why "Save and sign" is disabled now, or null when it is not. A problem with the draft's old
 * signature does not count: saving replaces the signature, and the runtime's save ignores it too.
 */
export function saveBlockReason(s: S): string | null {
  if (!s.open) return 'Open a policy first';
  if (s.save.phase === 'saving') return 'Saving…';
  if (s.history.restoring !== null) return 'Restoring a version…';
  if (s.open.draft === s.open.savedText) return 'No changes to save';
  const validation = currentValidation(s);
  if (!validation) return 'Checking the draft…';
  const errors = validation.diagnostics.filter((d) => d.severity === 'error');
  const blocking = errors.filter((d) => d.path !== SIGNATURE_PATH).length;
  if (blocking > 0) return `Fix the ${blocking} ${blocking === 1 ? 'problem' : 'problems'} first`;
  if (!validation.ok && errors.length === 0) return 'The draft does not load yet';
  return null;
}

/** The message after a policy was written: "Saved version 4, signed". */
export function savedMessage(version: PolicyVersion, restoredSeq?: number): string {
  if (version.action === 'restore') return `Restored version ${restoredSeq ?? '?'} as version ${version.seq}, signed`;
  if (version.action === 'adopt') return `Adopted as version ${version.seq}, signed`;
  return `Saved version ${version.seq}, signed`;
}
