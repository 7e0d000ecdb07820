import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Envelope } from '../../../src-shared/contract/index.js';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { FakeTransport, settle } from '../../testing/fake-transport.js';
import { fakeSha, OTHER_PATH, POLICY_PATH, PolicyDisk, TYPO_POLICY, typoDiagnostic, VALID_POLICY } from '../../testing/policy-fixtures.js';
import { connectCockpit } from './connect.js';
import { POLICIES_REFRESH_DELAY_MS, VALIDATE_DELAY_MS } from './policies.js';

/** Lets a chain of transport answers land (a save reads the file back, which is then checked). */
async function drain(): Promise<void> {
  for (let i = 0; i < 6; i += 1) await settle();
}

function connected(disk = new PolicyDisk(), transport = new FakeTransport()) {
  disk.serve(transport);
  const store = createCockpitStore();
  const cockpit = connectCockpit({ transport, store });
  transport.setState('connected');
  const editor = () => store.getState().policyEditor;
  return { disk, transport, store, editor, actions: cockpit.actions, cockpit };
}

async function opened(disk = new PolicyDisk()) {
  const harness = connected(disk);
  await drain();
  harness.actions.openPolicy(POLICY_PATH);
  await drain();
  return harness;
}

/** Holds a handler's answers until released, in any order. */
function deferred(transport: FakeTransport, name: 'policies.validate' | 'policies.try') {
  const waiting: Array<{ args: unknown; answer(value: Envelope<unknown>): void }> = [];
  transport.handle(name, (args) => new Promise((answer) => waiting.push({ args, answer })));
  return waiting;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('connectCockpit: policies', () => {
  it('loads the policies on connect and when the Policies page is opened, and after policies.saved events', async () => {
    const { transport, editor, actions } = connected(new PolicyDisk({ [POLICY_PATH]: VALID_POLICY, [OTHER_PATH]: VALID_POLICY }));
    await drain();
    expect(transport.callsTo('policies.list')).toEqual([{}]);
    expect(editor().policies.map((p) => p.path)).toEqual([POLICY_PATH, OTHER_PATH]);
    expect(editor().listStatus).toBe('ready');

    actions.navigate('policies');
    actions.navigate('policies');
    await drain();
    expect(transport.callsTo('policies.list')).toHaveLength(2);

    transport.emit('audit.appended', auditEntry(1, { event: 'policies.saved', data: { path: POLICY_PATH } }));
    transport.emit('audit.appended', auditEntry(2, { event: 'policies.saved', data: { path: POLICY_PATH } }));
    transport.emit('audit.appended', auditEntry(3, { event: 'aip.decision', data: {} }));
    await vi.advanceTimersByTimeAsync(POLICIES_REFRESH_DELAY_MS);
    await drain();
    expect(transport.callsTo('policies.list')).toHaveLength(3);
  });

  it('opens a policy: reads it, checks it at once, and loads its history', async () => {
    const disk = new PolicyDisk();
    disk.keep(POLICY_PATH, VALID_POLICY);
    const { transport, editor } = await opened(disk);
    expect(transport.callsTo('policies.read')).toEqual([{ path: POLICY_PATH }]);
    expect(transport.callsTo('policies.validate')).toEqual([{ text: VALID_POLICY }]);
    expect(transport.callsTo('policies.history')).toEqual([{ path: POLICY_PATH }]);
    expect(editor().open).toMatchObject({ path: POLICY_PATH, draft: VALID_POLICY, baseSha256: fakeSha(VALID_POLICY) });
    expect(editor().validation).toMatchObject({ text: VALID_POLICY, ok: true, diagnostics: [], tookMs: 1.25 });
    expect(editor().history.versions.map((v) => v.seq)).toEqual([1]);
  });

  it('says why a policy could not be opened', async () => {
    const { transport, editor, actions } = connected();
    transport.handle('policies.read', () => ({ ok: false, error: { code: 'E_UNAUTHORIZED', message: '/etc/x.yaml is not a policy of this installation' } }));
    actions.openPolicy('/etc/x.yaml');
    expect(editor().opening).toBe('/etc/x.yaml');
    await drain();
    expect(editor()).toMatchObject({ opening: null, open: null, openError: '/etc/x.yaml is not a policy of this installation (E_UNAUTHORIZED)' });
  });

  it('checks the draft once typing pauses for VALIDATE_DELAY_MS, and puts the diagnostics in the store', async () => {
    const { transport, editor, actions } = await opened();
    actions.editPolicy(`${VALID_POLICY}#`);
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS - 50);
    actions.editPolicy(`${VALID_POLICY}# a`);
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS - 50);
    actions.editPolicy(TYPO_POLICY);
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS - 1);
    expect(transport.callsTo('policies.validate')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await drain();
    expect(transport.callsTo('policies.validate')).toEqual([{ text: VALID_POLICY }, { text: TYPO_POLICY }]);
    expect(editor().validation).toMatchObject({ text: TYPO_POLICY, ok: false, diagnostics: [typoDiagnostic] });
    actions.editPolicy(TYPO_POLICY);
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS);
    expect(transport.callsTo('policies.validate')).toHaveLength(2);
  });

  it('drops a late answer for older text, and reports a failed check', async () => {
    const harness = await opened();
    const waiting = deferred(harness.transport, 'policies.validate');
    harness.actions.editPolicy(TYPO_POLICY);
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS);
    harness.actions.editPolicy(`${TYPO_POLICY}# warn\n`);
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS);
    expect(waiting.map((w) => w.args)).toEqual([{ text: TYPO_POLICY }, { text: `${TYPO_POLICY}# warn\n` }]);
    expect(harness.editor().validating).toBe(true);
    waiting[1]!.answer({ ok: true, value: { ok: false, diagnostics: [typoDiagnostic], hash: null, took_ms: 2 } });
    await drain();
    waiting[0]!.answer({ ok: true, value: { ok: true, diagnostics: [], hash: 'h', took_ms: 1 } });
    await drain();
    expect(harness.editor().validation).toMatchObject({ text: `${TYPO_POLICY}# warn\n`, diagnostics: [typoDiagnostic] });
    expect(harness.editor().validating).toBe(false);

    harness.transport.handle('policies.validate', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'runtime gone' } }));
    harness.actions.editPolicy(VALID_POLICY);
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS);
    await drain();
    expect(harness.editor().validateError).toBe('runtime gone (E_UNAVAILABLE)');
  });

  it('saves only a changed draft that loads, against the text it read, and then shows the signed file', async () => {
    const { transport, editor, actions, disk } = await opened();
    actions.savePolicy();
    actions.editPolicy(TYPO_POLICY);
    actions.savePolicy();
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS);
    await drain();
    actions.savePolicy();
    expect(transport.callsTo('policies.save')).toEqual([]);

    const edited = `${VALID_POLICY}# tidy\n`;
    actions.editPolicy(edited);
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS);
    await drain();
    actions.savePolicy();
    expect(editor().save.phase).toBe('saving');
    await drain();
    expect(transport.callsTo('policies.save')).toEqual([{ path: POLICY_PATH, text: edited, expected_sha256: fakeSha(VALID_POLICY) }]);
    const signed = PolicyDisk.sign(edited);
    expect(disk.files.get(POLICY_PATH)).toBe(signed);
    expect(editor().save).toEqual({ phase: 'saved', message: 'Saved version 1, signed' });
    expect(editor().open).toMatchObject({ draft: signed, savedText: signed, baseSha256: fakeSha(signed) });
    expect(transport.callsTo('policies.validate').at(-1)).toEqual({ text: signed });
    expect(editor().history.versions.map((v) => v.seq)).toEqual([1]);
    expect(transport.callsTo('policies.list')).toHaveLength(2);
  });

  it('on E_CONFLICT keeps the draft; Reload shows the file with the draft set aside, which can be brought back and saved', async () => {
    const { transport, editor, actions, disk } = await opened();
    const mine = `${VALID_POLICY}# mine\n`;
    actions.editPolicy(mine);
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS);
    await drain();
    const theirs = `${VALID_POLICY}# theirs\n`;
    disk.files.set(POLICY_PATH, theirs);
    actions.savePolicy();
    await drain();
    expect(editor().save).toEqual({ phase: 'conflict', message: `${POLICY_PATH} changed on disk since it was opened (E_CONFLICT)` });
    expect(editor().open?.draft).toBe(mine);

    actions.reloadPolicy();
    await drain();
    expect(editor().open).toMatchObject({ draft: theirs, setAside: mine, baseSha256: fakeSha(theirs) });
    expect(editor().save.phase).toBe('idle');
    actions.bringBackDraft();
    await drain();
    expect(editor().open).toMatchObject({ draft: mine, setAside: null });
    actions.savePolicy();
    await drain();
    expect(transport.callsTo('policies.save').at(-1)).toEqual({ path: POLICY_PATH, text: mine, expected_sha256: fakeSha(theirs) });
    expect(disk.files.get(POLICY_PATH)).toBe(PolicyDisk.sign(mine));
  });

  it('reports another failed save with the runtime message', async () => {
    const { transport, editor, actions } = await opened();
    transport.handle('policies.save', () => ({ ok: false, error: { code: 'E_KEYRING', message: 'the keyring is locked' } }));
    actions.editPolicy(`${VALID_POLICY}#\n`);
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS);
    await drain();
    actions.savePolicy();
    await drain();
    expect(editor().save).toEqual({ phase: 'error', message: 'the keyring is locked (E_KEYRING)' });
  });

  it('adopts a policy changed outside, and reverts one to its last saved version', async () => {
    const disk = new PolicyDisk({ [POLICY_PATH]: VALID_POLICY, [OTHER_PATH]: VALID_POLICY });
    const first = disk.keep(POLICY_PATH, PolicyDisk.sign(VALID_POLICY));
    disk.files.set(POLICY_PATH, `${VALID_POLICY}# outside\n`);
    const { transport, editor, actions } = connected(disk);
    await drain();
    expect(editor().policies.map((p) => p.modifiedOutside)).toEqual([true, true]);

    actions.adoptPolicy(OTHER_PATH);
    actions.revertPolicy(POLICY_PATH);
    expect(editor().fileAction).toEqual({ path: OTHER_PATH, kind: 'adopt' });
    await drain();
    expect(transport.callsTo('policies.adopt')).toEqual([{ path: OTHER_PATH }]);
    expect(editor().fileMessage).toEqual({ path: OTHER_PATH, kind: 'adopt', text: 'Adopted as version 1, signed', error: false });
    expect(transport.callsTo('policies.restore')).toEqual([]);

    actions.revertPolicy(POLICY_PATH);
    await drain();
    expect(transport.callsTo('policies.history')).toEqual([{ path: POLICY_PATH, limit: 1 }]);
    expect(transport.callsTo('policies.restore')).toEqual([{ id: first.id }]);
    expect(editor().fileMessage).toMatchObject({ path: POLICY_PATH, kind: 'revert', text: 'Reverted to version 1 (now version 2, signed)', error: false });
    expect(disk.files.get(POLICY_PATH)).toBe(PolicyDisk.sign(VALID_POLICY));
    expect(editor().policies.every((p) => !p.modifiedOutside)).toBe(true);
  });

  it('says when there is no version to revert to', async () => {
    const { transport, editor, actions } = connected();
    await drain();
    actions.revertPolicy(POLICY_PATH);
    await drain();
    expect(transport.callsTo('policies.restore')).toEqual([]);
    expect(editor().fileMessage).toMatchObject({ kind: 'revert', error: true, text: expect.stringMatching(/^There is no saved version to revert to/) });
  });

  it('runs the test bench on the draft: a call, a replay, the suite', async () => {
    const { transport, editor, actions } = await opened();
    const draft = `${VALID_POLICY}# block: true\n`;
    actions.editPolicy(draft);
    actions.tryPolicyCall('write_file', { path: '/tmp/a' });
    expect(editor().bench.running).toBe('try');
    await drain();
    expect(transport.callsTo('policies.try')).toEqual([{ text: draft, path: POLICY_PATH, call: { tool: 'write_file', args: { path: '/tmp/a' } } }]);
    expect(editor().bench).toMatchObject({ running: null, error: null, result: { kind: 'try', rows: [{ call: 'write_file {"path":"/tmp/a"}', inForce: 'ALLOW', draft: 'BLOCK', changed: true }] } });

    actions.replayPolicyCalls('files', 50);
    await drain();
    expect(transport.callsTo('policies.replay')).toEqual([{ text: draft, path: POLICY_PATH, server: 'files', last: 50 }]);
    expect(editor().bench.result).toMatchObject({ kind: 'replay', scanned: 2 });
    expect(editor().bench.result?.rows.map((r) => r.changed)).toEqual([true, false]);

    actions.runPolicySuite();
    await drain();
    expect(transport.callsTo('policies.suite')).toEqual([{ text: draft, path: POLICY_PATH }]);
    expect(editor().bench.result?.rows.map((r) => r.passed)).toEqual([true, false]);

    transport.handle('policies.suite', () => ({ ok: false, error: { code: 'E_NOT_FOUND', message: 'no suite beside files.yaml' } }));
    actions.runPolicySuite();
    await drain();
    expect(editor().bench).toMatchObject({ running: null, error: 'no suite beside files.yaml (E_NOT_FOUND)' });
    expect(editor().bench.result?.kind).toBe('suite');
  });

  it('drops a bench answer for a policy since closed', async () => {
    const harness = await opened();
    const waiting = deferred(harness.transport, 'policies.try');
    harness.actions.tryPolicyCall('read_file', {});
    harness.actions.closePolicy();
    waiting[0]!.answer({ ok: true, value: { draft: { decision: 'ALLOW', reason: '', rule: null, failedArg: null, errorCode: null, dlp: { action: 'none', rules: [] }, rateLimitRemaining: null }, current: null } });
    await drain();
    expect(harness.editor().bench).toEqual({ running: null, result: null, error: null });
    harness.actions.tryPolicyCall('read_file', {});
    expect(waiting).toHaveLength(1);
  });

  it('diffs a saved version against the editor, and restores one into the editor', async () => {
    const disk = new PolicyDisk();
    const first = disk.keep(POLICY_PATH, VALID_POLICY);
    disk.keep(POLICY_PATH, TYPO_POLICY);
    const { transport, editor, actions } = await opened(disk);
    expect(editor().open?.draft).toBe(TYPO_POLICY);

    actions.showPolicyDiff(first.id);
    expect(editor().history.diffLoading).toBe(first.id);
    await drain();
    expect(transport.callsTo('policies.version')).toEqual([{ id: first.id }]);
    expect(editor().history.diff).toEqual({ id: first.id, seq: 1, text: VALID_POLICY });
    actions.hidePolicyDiff();
    expect(editor().history.diff).toBeNull();

    actions.restorePolicyVersion(first.id);
    actions.restorePolicyVersion(first.id);
    expect(editor().history.restoring).toBe(first.id);
    await drain();
    expect(transport.callsTo('policies.restore')).toEqual([{ id: first.id }]);
    expect(editor().save).toEqual({ phase: 'saved', message: 'Restored version 1 as version 3, signed' });
    expect(editor().open).toMatchObject({ draft: VALID_POLICY, baseSha256: fakeSha(VALID_POLICY) });
    expect(editor().history.versions.map((v) => v.seq)).toEqual([3, 2, 1]);

    transport.handle('policies.restore', () => ({ ok: false, error: { code: 'E_CORRUPT', message: 'version 2 is corrupt' } }));
    actions.restorePolicyVersion(2);
    await drain();
    expect(editor().history).toMatchObject({ restoring: null, error: 'version 2 is corrupt (E_CORRUPT)' });
  });

  it('stops validating once disposed', async () => {
    const { transport, actions, cockpit } = await opened();
    actions.editPolicy(TYPO_POLICY);
    cockpit.dispose();
    await vi.advanceTimersByTimeAsync(VALIDATE_DELAY_MS * 2);
    expect(transport.callsTo('policies.validate')).toHaveLength(1);
  });
});
