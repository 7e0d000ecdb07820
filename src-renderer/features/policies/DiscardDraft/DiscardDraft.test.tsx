import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { OTHER_PATH, POLICY_PATH, PolicyDisk, VALID_POLICY } from '../../../testing/policy-fixtures.js';
import { flushAll, renderPolicies, typeDraft } from '../../../testing/render-policies.js';
import { PoliciesPage } from '../PoliciesPage/PoliciesPage.js';

afterEach(cleanup);

const EDITED = `${VALID_POLICY}# not saved yet\n`;
const dialog = () => screen.getByRole('alertdialog', { name: 'Unsaved changes' });

function twoPolicies(): PolicyDisk {
  return new PolicyDisk({ [POLICY_PATH]: VALID_POLICY, [OTHER_PATH]: VALID_POLICY.replace('name: files', 'name: web') });
}

describe('DiscardDraft', () => {
  it('asks before another policy replaces an unsaved draft, and keeps it on "Keep editing"', async () => {
    const harness = await renderPolicies(<PoliciesPage />, twoPolicies());
    typeDraft(harness, EDITED);
    act(() => harness.cockpit.actions.openPolicy(OTHER_PATH));
    await flushAll();
    expect(within(dialog()).getByText('Your changes to files.yaml are not saved. Discard them and open web.yaml?')).toBeTruthy();
    expect(document.activeElement).toBe(within(dialog()).getByRole('button', { name: 'Keep editing' }));
    expect(harness.transport.callsTo('policies.read')).toEqual([{ path: POLICY_PATH }]);
    fireEvent.click(within(dialog()).getByRole('button', { name: 'Keep editing' }));
    await flushAll();
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(harness.store.getState().policyEditor.open).toMatchObject({ path: POLICY_PATH, draft: EDITED });
    expect(harness.transport.callsTo('policies.read')).toEqual([{ path: POLICY_PATH }]);
  });

  it('opens the other policy once the person discards the draft', async () => {
    const harness = await renderPolicies(<PoliciesPage />, twoPolicies());
    typeDraft(harness, EDITED);
    act(() => harness.cockpit.actions.openPolicy(OTHER_PATH));
    await flushAll();
    fireEvent.click(within(dialog()).getByRole('button', { name: 'Discard changes' }));
    await flushAll();
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(harness.store.getState().policyEditor.open?.path).toBe(OTHER_PATH);
  });

  it('asks before closing the editor or re-reading the same file, and not when nothing is unsaved', async () => {
    const harness = await renderPolicies(<PoliciesPage />, twoPolicies());
    act(() => harness.cockpit.actions.closePolicy());
    await flushAll();
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(harness.store.getState().policyEditor.open).toBeNull();
    act(() => harness.cockpit.actions.openPolicy(POLICY_PATH));
    await flushAll();
    typeDraft(harness, EDITED);
    act(() => harness.cockpit.actions.closePolicy());
    await flushAll();
    expect(within(dialog()).getByText(/Discard them and close the editor\?$/)).toBeTruthy();
    act(() => harness.cockpit.actions.openPolicy(POLICY_PATH));
    await flushAll();
    // The newer question replaces the older one, which is answered "keep editing".
    expect(screen.getAllByRole('alertdialog')).toHaveLength(1);
    expect(within(dialog()).getByText(/Discard them and read files.yaml again from disk\?$/)).toBeTruthy();
    fireEvent.click(within(dialog()).getByRole('button', { name: 'Discard changes' }));
    await flushAll();
    expect(harness.store.getState().policyEditor.open).toMatchObject({ path: POLICY_PATH, draft: VALID_POLICY });
  });

  it('asks before making a rule of a standing approval in another policy', async () => {
    const harness = await renderPolicies(<PoliciesPage />, twoPolicies());
    typeDraft(harness, EDITED);
    act(() => harness.cockpit.actions.makeRuleFromStanding(OTHER_PATH, 'read_file', { path: '/tmp/a' }));
    await flushAll();
    expect(within(dialog()).getByText(/Discard them and open web.yaml\?$/)).toBeTruthy();
    expect(harness.transport.callsTo('policies.edit')).toEqual([]);
    fireEvent.click(within(dialog()).getByRole('button', { name: 'Keep editing' }));
    await flushAll();
    expect(harness.transport.callsTo('policies.edit')).toEqual([]);
    expect(harness.store.getState().policyEditor.open?.draft).toBe(EDITED);
  });

  it('has the browser warn before a reload would lose the draft', async () => {
    const harness = await renderPolicies(<PoliciesPage />, twoPolicies(), POLICY_PATH, { withWindow: true });
    const unload = () => {
      const event = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(event);
      return event.defaultPrevented;
    };
    expect(unload()).toBe(false);
    typeDraft(harness, EDITED);
    expect(unload()).toBe(true);
    harness.cockpit.dispose();
    expect(unload()).toBe(false);
  });
});
