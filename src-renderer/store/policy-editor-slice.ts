import type { StateCreator } from 'zustand';
import { canonicalAuditEvent } from '../../src-shared/audit/events.js';
import type { CockpitState } from './cockpit-store.js';
import type { BenchKind, BenchResult } from './policy-bench-rows.js';
import * as r from './policy-editor-state.js';
import * as g from './policy-gallery-state.js';
import type { PolicyEditorState, PolicyFileStatus, PolicyRead, PolicySaved, PolicyValidation, PolicyVersion, VersionText } from './policy-editor-state.js';

export interface PolicyEditorSlice {
  policyEditor: PolicyEditorState;
  policiesLoading(): void;
  policiesLoaded(policies: readonly PolicyFileStatus[]): void;
  policiesFailed(message: string): void;
  policyFileActionStarted(path: string, kind: 'adopt' | 'revert'): void;
  policyFileActionDone(path: string, text: string, error: boolean): void;
  policyOpening(path: string): void;
  policyDiscardAsked(next: string | null): void;
  policyGalleryShown(shown: boolean): void;
  policyTemplatesLoading(): void;
  policyTemplatesLoaded(templates: readonly g.PolicyTemplateView[]): void;
  policyTemplatesFailed(message: string): void;
  policyCreateStarted(): void;
  policyCreateDone(text: string, error: boolean): void;
  policyDiscardSettled(): void;
  policyOpenFailed(path: string, message: string): void;
  policyOpened(path: string, read: PolicyRead): void;
  policyClosed(): void;
  policyDraftEdited(text: string): void;
  policyFormStarted(): void;
  policyFormApplied(path: string, text: string, notes: readonly string[]): void;
  policyFormFailed(message: string): void;
  policyValidating(): void;
  policyValidated(validation: PolicyValidation): void;
  policyValidateFailed(message: string): void;
  policySaving(): void;
  policySaved(path: string, text: string, saved: PolicySaved, message: string): void;
  policySaveConflicted(path: string, message: string): void;
  policySaveFailed(path: string, message: string): void;
  policyReread(path: string, read: PolicyRead, options: { replace: boolean; unchangedFrom?: string; setAside?: boolean }): void;
  policySetAsideRestored(): void;
  policyBenchStarted(kind: BenchKind): void;
  policyBenchDone(result: BenchResult): void;
  policyBenchFailed(message: string): void;
  policyHistoryLoading(): void;
  policyHistoryLoaded(path: string, versions: readonly PolicyVersion[]): void;
  policyHistoryFailed(path: string, message: string): void;
  policyDiffLoading(id: number): void;
  policyDiffLoaded(diff: VersionText): void;
  policyDiffFailed(id: number, message: string): void;
  policyDiffClosed(): void;
  policyDiffAgainstLoading(id: number): void;
  policyDiffAgainstLoaded(against: VersionText): void;
  policyDiffAgainstFailed(id: number, message: string): void;
  policyDiffAgainstDraft(): void;
  policyRestoring(id: number): void;
  policyRestored(id: number, message: string): void;
  policyRestoreFailed(id: number, message: string): void;
}

export const createPolicyEditorSlice: StateCreator<CockpitState, [], [], PolicyEditorSlice> = (set) => {
  const update = (fn: (s: PolicyEditorState) => PolicyEditorState) => set((state) => ({ policyEditor: fn(state.policyEditor) }));
  const gallery = (fn: (x: g.PolicyGalleryState) => g.PolicyGalleryState) => update((s) => ({ ...s, gallery: fn(s.gallery) }));
  return {
    policyEditor: r.initialPolicyEditor,
    policiesLoading: () => update(r.listLoading),
    policiesLoaded: (policies) => update((s) => r.listLoaded(s, policies)),
    policiesFailed: (message) => update((s) => r.listFailed(s, message)),
    policyFileActionStarted: (path, kind) => update((s) => r.fileActionStarted(s, path, kind)),
    policyFileActionDone: (path, text, error) => update((s) => r.fileActionDone(s, path, text, error)),
    policyOpening: (path) => update((s) => r.policyOpening(s, path)),
    policyDiscardAsked: (next) => update((s) => r.discardAsked(s, next)),
    policyGalleryShown: (shown) => gallery((x) => g.galleryShown(x, shown)),
    policyTemplatesLoading: () => gallery(g.templatesLoading),
    policyTemplatesLoaded: (templates) => gallery((x) => g.templatesLoaded(x, templates)),
    policyTemplatesFailed: (message) => gallery((x) => g.templatesFailed(x, message)),
    policyCreateStarted: () => gallery(g.createStarted),
    policyCreateDone: (text, error) => gallery((x) => g.createDone(x, text, error)),
    policyDiscardSettled: () => update(r.discardSettled),
    policyOpenFailed: (path, message) => update((s) => r.policyOpenFailed(s, path, message)),
    policyOpened: (path, read) => update((s) => r.policyOpened(s, path, read)),
    policyClosed: () => update(r.policyClosed),
    policyDraftEdited: (text) => update((s) => r.draftEdited(s, text)),
    policyFormStarted: () => update(r.formStarted),
    policyFormApplied: (path, text, notes) => update((s) => r.formApplied(s, path, text, notes)),
    policyFormFailed: (message) => update((s) => r.formFailed(s, message)),
    policyValidating: () => update(r.validationStarted),
    policyValidated: (validation) => update((s) => r.validated(s, validation)),
    policyValidateFailed: (message) => update((s) => r.validationFailed(s, message)),
    policySaving: () => update(r.saveStarted),
    policySaved: (path, text, saved, message) => update((s) => r.saveSucceeded(s, path, text, saved, message)),
    policySaveConflicted: (path, message) => update((s) => r.saveConflicted(s, path, message)),
    policySaveFailed: (path, message) => update((s) => r.saveFailed(s, path, message)),
    policyReread: (path, read, options) => update((s) => r.policyReread(s, path, read, options)),
    policySetAsideRestored: () => update(r.setAsideRestored),
    policyBenchStarted: (kind) => update((s) => r.benchStarted(s, kind)),
    policyBenchDone: (result) => update((s) => r.benchDone(s, result)),
    policyBenchFailed: (message) => update((s) => r.benchFailed(s, message)),
    policyHistoryLoading: () => update(r.historyLoading),
    policyHistoryLoaded: (path, versions) => update((s) => r.historyLoaded(s, path, versions)),
    policyHistoryFailed: (path, message) => update((s) => r.historyFailed(s, path, message)),
    policyDiffLoading: (id) => update((s) => r.diffLoading(s, id)),
    policyDiffLoaded: (diff) => update((s) => r.diffLoaded(s, diff)),
    policyDiffFailed: (id, message) => update((s) => r.diffFailed(s, id, message)),
    policyDiffClosed: () => update(r.diffClosed),
    policyDiffAgainstLoading: (id) => update((s) => r.againstLoading(s, id)),
    policyDiffAgainstLoaded: (against) => update((s) => r.againstLoaded(s, against)),
    policyDiffAgainstFailed: (id, message) => update((s) => r.againstFailed(s, id, message)),
    policyDiffAgainstDraft: () => update(r.againstDraft),
    policyRestoring: (id) => update((s) => r.restoreStarted(s, id)),
    policyRestored: (id, message) => update((s) => r.restoreDone(s, id, message)),
    policyRestoreFailed: (id, message) => update((s) => r.restoreFailed(s, id, message)),
  };
};

/** Audit events after which the list of policies (signature, outside edits, versions) may have changed. */
export function affectsPolicies(event: string): boolean {
  return canonicalAuditEvent(event) === 'policies.saved';
}
