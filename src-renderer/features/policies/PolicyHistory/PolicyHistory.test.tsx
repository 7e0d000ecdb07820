import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { formatLocalTime } from '../../activity/audit-format.js';
import { POLICY_PATH, PolicyDisk, TYPO_POLICY, VALID_POLICY } from '../../../testing/policy-fixtures.js';
import { flushAll, renderPolicies, typeDraft } from '../../../testing/render-policies.js';
import { PolicyHistory } from './PolicyHistory.js';

afterEach(cleanup);

const history = () => screen.getByRole('region', { name: 'History' });
const restore = (seq: number) => within(history()).getByRole('button', { name: `Restore version ${seq}` }) as HTMLButtonElement;

function library(): PolicyDisk {
  const disk = new PolicyDisk();
  disk.keep(POLICY_PATH, VALID_POLICY);
  disk.keep(POLICY_PATH, `${VALID_POLICY}# two\n`, 'adopt', { corrupt: true });
  disk.keep(POLICY_PATH, TYPO_POLICY, 'restore');
  return disk;
}

describe('PolicyHistory', () => {
  it('lists the saved versions newest first: seq, action, time, signer, and ones changed outside Silas that cannot be restored or diffed', async () => {
    await renderPolicies(<PolicyHistory />, library());
    const items = within(history()).getAllByRole('listitem');
    expect(items.map((item) => item.getAttribute('aria-label'))).toEqual(['Version 3', 'Version 2', 'Version 1']);
    expect(items[0]!.textContent).toContain('Restored');
    expect(items[1]!.textContent).toContain('Adopted');
    expect(items[2]!.textContent).toContain('Saved');
    expect(items[2]!.textContent).toContain(formatLocalTime('2026-01-01T10:00:00.000Z'));
    expect(within(items[2]!).getByText('ed25519:9f2c1be07a51').getAttribute('title')).toBe('ed25519:9f2c1be07a51d4c3e8f0aa11bb22cc33');
    expect(within(items[1]!).getByText('changed outside Silas — not trusted')).toBeTruthy();
    expect(restore(2).disabled).toBe(true);
    expect((within(history()).getByRole('button', { name: 'Diff version 2' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByRole('button', { name: 'Restore version 2', description: /^Changed outside Silas — not trusted: its stored text or its record no longer matches/ })).toBeTruthy();
    expect(restore(1).disabled).toBe(false);
    expect(screen.getByRole('button', { name: 'Restore version 1', description: 'Writes this version back, signed now, as a new version' })).toBeTruthy();
  });

  it('diffs a version against the text in the editor, following edits', async () => {
    const harness = await renderPolicies(<PolicyHistory />, library());
    const diffButton = within(history()).getByRole('button', { name: 'Diff version 1' });
    fireEvent.click(diffButton);
    await flushAll();
    expect(harness.transport.callsTo('policies.version')).toEqual([{ id: 1 }]);
    expect(diffButton.getAttribute('aria-pressed')).toBe('true');
    const diff = screen.getByLabelText('Version 1 (−) against the editor (+): 1 removed, 1 added');
    expect(diff.textContent).toContain('-   allowed_tools: [read_file]');
    expect(diff.textContent).toContain('+   alowed_tools: [read_file]');
    typeDraft(harness, VALID_POLICY);
    expect(screen.getByLabelText('Version 1 (−) against the editor (+): identical')).toBeTruthy();
    fireEvent.click(diffButton);
    expect(screen.queryByLabelText(/^Version 1 \(−\)/)).toBeNull();
  });

  it('diffs any two saved versions, and goes back to the draft', async () => {
    const harness = await renderPolicies(<PolicyHistory />, library());
    fireEvent.click(within(history()).getByRole('button', { name: 'Diff version 1' }));
    await flushAll();
    const compare = within(history()).getByRole('combobox', { name: 'Compare version 1 with' }) as HTMLSelectElement;
    expect([...compare.options].map((option) => option.text)).toEqual(["the editor's draft", 'Version 3', 'Version 2']);
    fireEvent.change(compare, { target: { value: String(harness.store.getState().policyEditor.history.versions[0]!.id) } });
    await flushAll();
    expect(harness.transport.callsTo('policies.version')).toEqual([{ id: 1 }, { id: 3 }]);
    const between = screen.getByLabelText('Version 1 (−) against version 3 (+): 1 removed, 1 added');
    expect(between.textContent).toContain('-   allowed_tools: [read_file]');
    expect(between.textContent).toContain('+   alowed_tools: [read_file]');
    // Editing the draft does not change a diff between two saved versions.
    typeDraft(harness, `${VALID_POLICY}# edited\n`);
    expect(screen.getByLabelText('Version 1 (−) against version 3 (+): 1 removed, 1 added')).toBeTruthy();
    fireEvent.change(compare, { target: { value: '' } });
    expect(screen.getByLabelText('Version 1 (−) against the editor (+): 0 removed, 1 added')).toBeTruthy();
  });

  it('says why the other version of a diff could not be read', async () => {
    const harness = await renderPolicies(<PolicyHistory />, library());
    fireEvent.click(within(history()).getByRole('button', { name: 'Diff version 1' }));
    await flushAll();
    harness.transport.handle('policies.version', () => ({ ok: false, error: { code: 'E_NOT_FOUND', message: 'no version 3' } }));
    fireEvent.change(within(history()).getByRole('combobox', { name: 'Compare version 1 with' }), { target: { value: '3' } });
    await flushAll();
    expect(within(history()).getByRole('alert').textContent).toBe('no version 3 (E_NOT_FOUND)');
    expect(screen.getByLabelText(/^Version 1 \(−\) against the editor \(\+\)/)).toBeTruthy();
  });

  it('restores a version into the editor as a new signed version', async () => {
    const harness = await renderPolicies(<PolicyHistory />, library());
    fireEvent.click(restore(1));
    expect(restore(3).disabled).toBe(true);
    expect(within(history()).getByText('Restoring…')).toBeTruthy();
    await flushAll();
    expect(harness.transport.callsTo('policies.restore')).toEqual([{ id: 1 }]);
    expect(harness.store.getState().policyEditor.open?.draft).toBe(VALID_POLICY);
    expect(harness.store.getState().policyEditor.save.message).toBe('Restored version 1 as version 4, signed');
    expect(within(history()).getAllByRole('listitem')[0]!.getAttribute('aria-label')).toBe('Version 4');
  });

  it('says why a restore was refused', async () => {
    const harness = await renderPolicies(<PolicyHistory />, library());
    harness.transport.handle('policies.restore', () => ({ ok: false, error: { code: 'E_CORRUPT', message: 'version 1 is corrupt' } }));
    fireEvent.click(restore(1));
    await flushAll();
    expect(within(history()).getByRole('alert').textContent).toBe('version 1 is corrupt (E_CORRUPT)');
    expect(restore(1).disabled).toBe(false);
  });
});
