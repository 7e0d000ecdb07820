import { describe, expect, it } from 'vitest';
import { createCockpitStore } from './cockpit-store.js';
import { affectsPolicies } from './policy-editor-slice.js';
import * as r from './policy-editor-state.js';
import { OTHER_PATH, POLICY_PATH, policyStatus, policyVersion, TYPO_POLICY, typoDiagnostic, VALID_POLICY } from '../testing/policy-fixtures.js';
import { tryResult } from './policy-bench-rows.js';

const read = (text = VALID_POLICY, sha = 'a'.repeat(64)) => ({ status: policyStatus({ textSha256: sha }), text });
const opened = (text = VALID_POLICY) => r.policyOpened(r.initialPolicyEditor, POLICY_PATH, read(text));
const checked = (s: r.PolicyEditorState, text: string, diagnostics = [] as r.PolicyDiagnostic[]) =>
  r.validated(s, { text, ok: diagnostics.every((d) => d.severity !== 'error'), diagnostics, hash: null, tookMs: 1 });

describe('policy editor reducers', () => {
  it('puts a form change into the draft as an edit, with a new revision for the editor, and keeps its notes until another file opens', () => {
    let s = r.formStarted(opened());
    expect(s.form).toEqual({ pending: true, notes: [], error: null });
    s = r.formApplied(s, POLICY_PATH, `${VALID_POLICY}# rule\n`, ['pinned path']);
    expect(s.open).toMatchObject({ draft: `${VALID_POLICY}# rule\n`, savedText: VALID_POLICY, revision: 2 });
    expect(s.form).toEqual({ pending: false, notes: ['pinned path'], error: null });
    expect(r.formApplied(s, OTHER_PATH, 'other', [])).toBe(s);
    // Nothing changed in the text (the tool was already allowed): same revision, the notes say why.
    const same = r.formApplied(r.formStarted(s), POLICY_PATH, `${VALID_POLICY}# rule\n`, ['already allowed']);
    expect(same.open?.revision).toBe(2);
    expect(same.form.notes).toEqual(['already allowed']);
    expect(r.formFailed(s, 'flow style').form).toEqual({ pending: false, notes: [], error: 'flow style' });
    expect(r.policyOpened(s, OTHER_PATH, read()).form).toEqual({ pending: false, notes: [], error: null });
    expect(r.policyClosed(s).form.notes).toEqual([]);
  });

  it('loads the list, keeps it through a failed reload, and refreshes the open policy\'s status from it', () => {
    let s = r.listLoading(r.initialPolicyEditor);
    expect(s.listStatus).toBe('loading');
    s = r.listFailed(s, 'runtime gone');
    expect(s).toMatchObject({ listStatus: 'error', listError: 'runtime gone' });
    s = r.policyOpened(r.listLoaded(s, [policyStatus()]), POLICY_PATH, read());
    s = r.listFailed(r.listLoading(s), 'again');
    expect(s).toMatchObject({ listStatus: 'ready', listError: 'again' });
    s = r.listLoaded(s, [policyStatus({ modifiedOutside: true, signature: 'invalid' })]);
    expect(s.open?.status).toMatchObject({ modifiedOutside: true, signature: 'invalid' });
  });

  it('opens a policy with its text as draft and baseline, and clears what belonged to another file', () => {
    let s = opened();
    expect(s.open).toMatchObject({ path: POLICY_PATH, draft: VALID_POLICY, savedText: VALID_POLICY, baseSha256: 'a'.repeat(64), revision: 1, setAside: null });
    s = r.benchDone(r.historyLoaded(s, POLICY_PATH, [policyVersion(1)]), tryResult('read_file', {}, { draft: { decision: 'ALLOW', reason: '', rule: null, failedArg: null, errorCode: null, dlp: { action: 'none', rules: [] }, rateLimitRemaining: null }, current: null }));
    const again = r.policyOpened(s, POLICY_PATH, read());
    expect(again.open?.revision).toBe(2);
    expect(again.history.versions).toHaveLength(1);
    expect(again.bench.result).not.toBeNull();
    const other = r.policyOpened(s, OTHER_PATH, read());
    expect(other.history.versions).toEqual([]);
    expect(other.bench.result).toBeNull();
    expect(r.policyClosed(other).open).toBeNull();
  });

  it('tracks edits, and takes only a validation of the text in the editor as current', () => {
    let s = opened();
    expect(r.draftEdited(s, VALID_POLICY)).toBe(s);
    s = r.draftEdited(s, TYPO_POLICY);
    expect(s.open?.draft).toBe(TYPO_POLICY);
    s = checked(s, VALID_POLICY);
    expect(r.currentValidation(s)).toBeNull();
    s = checked(s, TYPO_POLICY, [typoDiagnostic]);
    expect(r.currentValidation(s)?.diagnostics).toEqual([typoDiagnostic]);
    expect(r.errorCount([typoDiagnostic, { ...typoDiagnostic, severity: 'warning' }])).toBe(1);
  });

  it('says why Save is disabled: unchanged, being checked, errors, saving, restoring', () => {
    expect(r.saveBlockReason(r.initialPolicyEditor)).toBe('Open a policy first');
    let s = checked(opened(), VALID_POLICY);
    expect(r.saveBlockReason(s)).toBe('No changes to save');
    s = r.draftEdited(s, TYPO_POLICY);
    expect(r.saveBlockReason(s)).toBe('Checking the draft…');
    s = checked(s, TYPO_POLICY, [typoDiagnostic]);
    expect(r.saveBlockReason(s)).toBe('Fix the 1 problem first');
    s = checked(s, TYPO_POLICY, [typoDiagnostic, typoDiagnostic, { ...typoDiagnostic, severity: 'warning' }]);
    expect(r.saveBlockReason(s)).toBe('Fix the 2 problems first');
    const edited = `${VALID_POLICY}# more\n`;
    s = checked(r.draftEdited(s, edited), edited, [{ ...typoDiagnostic, severity: 'warning' }]);
    expect(r.saveBlockReason(s)).toBeNull();
    expect(r.saveBlockReason(r.saveStarted(s))).toBe('Saving…');

    // An old signature that no longer verifies is replaced by the save: it does not block it.
    const signature = { ...typoDiagnostic, path: r.SIGNATURE_PATH, message: 'Policy signature invalid: it does not verify' };
    const signed = checked(r.draftEdited(s, `${edited}#`), `${edited}#`, [signature]);
    expect(signed.validation?.ok).toBe(false);
    expect(r.saveBlockReason(signed)).toBeNull();
    expect(r.saveBlockReason(checked(signed, `${edited}#`, [signature, typoDiagnostic]))).toBe('Fix the 1 problem first');
    const noErrors = r.validated(signed, { text: `${edited}#`, ok: false, diagnostics: [], hash: null, tookMs: 1 });
    expect(r.saveBlockReason(noErrors)).toBe('The draft does not load yet');
    expect(r.saveBlockReason(r.restoreStarted(s, 10))).toBe('Restoring a version…');
  });

  it('after a save, takes the signed text back when the draft was not edited meanwhile', () => {
    const edited = `${VALID_POLICY}# more\n`;
    let s = r.saveStarted(r.draftEdited(opened(), edited));
    const signed = `${edited}# signed\n`;
    const saved = { status: policyStatus({ textSha256: 'b'.repeat(64) }), version: policyVersion(2) };
    s = r.saveSucceeded(s, POLICY_PATH, edited, saved, r.savedMessage(saved.version));
    expect(s.save).toEqual({ phase: 'saved', message: 'Saved version 2, signed' });
    expect(s.open).toMatchObject({ savedText: edited, baseSha256: 'b'.repeat(64) });
    s = r.policyReread(s, POLICY_PATH, read(signed, 'c'.repeat(64)), { replace: false, unchangedFrom: edited });
    expect(s.open).toMatchObject({ draft: signed, savedText: signed, baseSha256: 'c'.repeat(64), revision: 2 });

    // Typed on while the save was on its way: the draft stays, the baseline moves.
    let typing = r.saveSucceeded(r.draftEdited(r.saveStarted(r.draftEdited(opened(), edited)), `${edited}x`), POLICY_PATH, edited, saved, 'Saved version 2, signed');
    typing = r.policyReread(typing, POLICY_PATH, read(signed, 'c'.repeat(64)), { replace: false, unchangedFrom: edited });
    expect(typing.open).toMatchObject({ draft: `${edited}x`, savedText: signed, baseSha256: 'c'.repeat(64), revision: 1 });
  });

  it('on a conflict, a reload shows the file and sets the draft aside until brought back or typed over', () => {
    let s = r.saveConflicted(r.saveStarted(r.draftEdited(opened(), TYPO_POLICY)), POLICY_PATH, 'changed on disk (E_CONFLICT)');
    expect(s.save.phase).toBe('conflict');
    expect(r.draftEdited(s, `${TYPO_POLICY}x`).save.phase).toBe('conflict');
    const outside = `${VALID_POLICY}# edited outside\n`;
    s = r.policyReread(s, POLICY_PATH, read(outside, 'd'.repeat(64)), { replace: true, setAside: true });
    expect(s.open).toMatchObject({ draft: outside, savedText: outside, baseSha256: 'd'.repeat(64), setAside: TYPO_POLICY });
    expect(s.save.phase).toBe('idle');
    const back = r.setAsideRestored(s);
    expect(back.open).toMatchObject({ draft: TYPO_POLICY, setAside: null, baseSha256: 'd'.repeat(64), revision: s.open!.revision + 1 });
    expect(r.setAsideRestored(back)).toBe(back);
    expect(r.draftEdited(s, 'typed').open?.setAside).toBeNull();
  });

  it('ignores answers about a file that is no longer open', () => {
    const s = opened();
    expect(r.historyLoaded(s, OTHER_PATH, [policyVersion(1)])).toBe(s);
    expect(r.saveFailed(s, OTHER_PATH, 'x')).toBe(s);
    expect(r.policyReread(s, OTHER_PATH, read(), { replace: true })).toBe(s);
    expect(r.policyOpenFailed(r.policyOpening(s, OTHER_PATH), POLICY_PATH, 'x').openError).toBeNull();
  });

  it('compares the diffed version with another only while that one is asked for; a new diff starts against the draft', () => {
    let s = r.diffLoaded(r.diffLoading(opened(), 10), { id: 10, seq: 1, text: 'a' });
    expect(r.againstLoading(r.diffClosed(s), 20).history.againstLoading).toBeNull();
    s = r.againstLoading(s, 20);
    expect(r.againstLoaded(s, { id: 30, seq: 3, text: 'c' }).history.against).toBeNull();
    s = r.againstLoaded(s, { id: 20, seq: 2, text: 'b' });
    expect(s.history).toMatchObject({ against: { id: 20, seq: 2 }, againstLoading: null });
    expect(r.againstFailed(r.againstLoading(s, 30), 30, 'gone').history).toMatchObject({ againstLoading: null, error: 'gone', against: { id: 20 } });
    expect(r.againstDraft(s).history.against).toBeNull();
    expect(r.diffLoading(s, 20).history).toMatchObject({ against: null, againstLoading: null });
    expect(r.diffClosed(s).history).toMatchObject({ diff: null, against: null });
  });

  it('loads a version for the diff only while it is the one asked for, and tracks restores', () => {
    let s = r.diffLoading(opened(), 10);
    expect(r.diffLoaded(s, { id: 20, seq: 2, text: 'x' }).history.diff).toBeNull();
    s = r.diffLoaded(s, { id: 10, seq: 1, text: VALID_POLICY });
    expect(s.history).toMatchObject({ diff: { id: 10, seq: 1 }, diffLoading: null });
    expect(r.diffClosed(s).history.diff).toBeNull();
    s = r.restoreStarted(s, 10);
    expect(s.history.restoring).toBe(10);
    expect(r.restoreFailed(s, 10, 'corrupt (E_CORRUPT)').history).toMatchObject({ restoring: null, error: 'corrupt (E_CORRUPT)' });
    const done = r.restoreDone(s, 10, r.savedMessage(policyVersion(3, { action: 'restore' }), 1));
    expect(done.history.restoring).toBeNull();
    expect(done.save).toEqual({ phase: 'saved', message: 'Restored version 1 as version 3, signed' });
    expect(r.savedMessage(policyVersion(4, { action: 'adopt' }))).toBe('Adopted as version 4, signed');
  });

  it('keeps the kind of a failed adopt or revert with its message', () => {
    const s = r.fileActionStarted(r.initialPolicyEditor, POLICY_PATH, 'revert');
    expect(s.fileAction).toEqual({ path: POLICY_PATH, kind: 'revert' });
    expect(r.fileActionDone(s, POLICY_PATH, 'no version', true)).toMatchObject({ fileAction: null, fileMessage: { path: POLICY_PATH, kind: 'revert', text: 'no version', error: true } });
  });

  it('lives in the cockpit store as one slice', () => {
    const store = createCockpitStore();
    store.getState().policyOpened(POLICY_PATH, read());
    store.getState().policyDraftEdited(TYPO_POLICY);
    expect(store.getState().policyEditor.open?.draft).toBe(TYPO_POLICY);
    expect(affectsPolicies('policies.saved')).toBe(true);
    expect(['policies.write_refused', 'aip.decision'].some(affectsPolicies)).toBe(false);
  });
});
