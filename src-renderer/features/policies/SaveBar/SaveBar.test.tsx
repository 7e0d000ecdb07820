import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeSha, POLICY_PATH, PolicyDisk, TYPO_POLICY, VALID_POLICY } from '../../../testing/policy-fixtures.js';
import { afterDebounce, flushAll, renderPolicies, typeDraft } from '../../../testing/render-policies.js';
import { SaveBar } from './SaveBar.js';

afterEach(cleanup);

const save = () => screen.getByRole('button', { name: 'Save and sign' }) as HTMLButtonElement;
const reason = () => screen.getByRole('button', { name: 'Save and sign' }).getAttribute('aria-describedby');

describe('SaveBar', () => {
  it('is disabled, saying why, while the draft is unchanged, being checked, or has errors', async () => {
    const harness = await renderPolicies(<SaveBar />);
    expect(save().disabled).toBe(true);
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'No changes to save' })).toBeTruthy();

    typeDraft(harness, TYPO_POLICY);
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'Checking the draft…' })).toBeTruthy();
    await afterDebounce();
    expect(save().disabled).toBe(true);
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'Fix the 1 problem first' })).toBeTruthy();

    typeDraft(harness, `${TYPO_POLICY}alowed_tools: []\n`);
    await afterDebounce();
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'Fix the 2 problems first' })).toBeTruthy();

    typeDraft(harness, `${VALID_POLICY}# tidy\n`);
    await afterDebounce();
    expect(save().disabled).toBe(false);
    expect(reason()).toBeNull();
  });

  it('saves against the text it read and says which version was signed', async () => {
    const harness = await renderPolicies(<SaveBar />);
    const edited = `${VALID_POLICY}# tidy\n`;
    typeDraft(harness, edited);
    await afterDebounce();
    fireEvent.click(save());
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'Saving…' })).toBeTruthy();
    await flushAll();
    expect(harness.transport.callsTo('policies.save')).toEqual([{ path: POLICY_PATH, text: edited, expected_sha256: fakeSha(VALID_POLICY) }]);
    expect(screen.getByRole('status').textContent).toBe('Saved version 1, signed');
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'No changes to save' })).toBeTruthy();

    typeDraft(harness, `${PolicyDisk.sign(edited)}# more\n`);
    expect(screen.getByRole('status').textContent).toBe('');
  });

  it('on a conflict says the file changed on disk, and Reload shows it with the draft set aside', async () => {
    const harness = await renderPolicies(<SaveBar />);
    const mine = `${VALID_POLICY}# mine\n`;
    typeDraft(harness, mine);
    await afterDebounce();
    harness.disk.files.set(POLICY_PATH, `${VALID_POLICY}# theirs\n`);
    fireEvent.click(save());
    await flushAll();
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('The file changed on disk; reload Reload');
    fireEvent.click(screen.getByRole('button', { name: 'Reload' }));
    await flushAll();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(harness.store.getState().policyEditor.open?.draft).toBe(`${VALID_POLICY}# theirs\n`);
    expect(screen.getByText(/your draft was set aside/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Bring back my draft' }));
    await flushAll();
    expect(harness.store.getState().policyEditor.open?.draft).toBe(mine);
    expect(save().disabled).toBe(false);
  });

  it('shows another failure with the runtime message', async () => {
    const harness = await renderPolicies(<SaveBar />);
    harness.transport.handle('policies.save', () => ({ ok: false, error: { code: 'E_KEYRING', message: 'the keyring is locked' } }));
    typeDraft(harness, `${VALID_POLICY}#\n`);
    await afterDebounce();
    fireEvent.click(save());
    await flushAll();
    expect(screen.getByRole('alert').textContent).toBe('Could not save: the keyring is locked (E_KEYRING)');
  });
});
