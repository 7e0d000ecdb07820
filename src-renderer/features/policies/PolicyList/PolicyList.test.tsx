import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { OTHER_PATH, POLICY_PATH, PolicyDisk, VALID_POLICY } from '../../../testing/policy-fixtures.js';
import { flushAll, renderPolicies } from '../../../testing/render-policies.js';
import { PolicyList } from './PolicyList.js';

afterEach(cleanup);

const item = (name: string) => within(screen.getByRole('list', { name: 'Policies' })).getByRole('listitem', { name });
const BROKEN = '/home/ada/.silas/policies/broken.yaml';

/** files.yaml signed and saved; web.yaml edited outside after a save; broken.yaml never saved and not loading. */
function library(): PolicyDisk {
  const disk = new PolicyDisk({ [POLICY_PATH]: VALID_POLICY, [OTHER_PATH]: VALID_POLICY, [BROKEN]: 'spec:\n  alowed_tools: []\n' });
  disk.keep(POLICY_PATH, PolicyDisk.sign(VALID_POLICY));
  disk.keep(OTHER_PATH, PolicyDisk.sign(VALID_POLICY));
  disk.files.set(OTHER_PATH, `${VALID_POLICY}# outside\n`);
  return disk;
}

describe('PolicyList', () => {
  it('lists each policy with its path, signature, outside edits and versions, and opens one in the editor', async () => {
    const harness = await renderPolicies(<PolicyList />, library(), null);
    const files = item('files.yaml');
    expect(within(files).getByText(POLICY_PATH)).toBeTruthy();
    expect(within(files).getByText('Signed')).toBeTruthy();
    expect(within(files).queryByText('Changed outside the cockpit')).toBeNull();
    expect(within(files).getByText('1 saved version')).toBeTruthy();
    expect(within(files).queryByRole('button', { name: /^(Adopt|Revert)/ })).toBeNull();

    const web = item('web.yaml');
    expect(within(web).getByText('Unsigned')).toBeTruthy();
    expect(within(web).getByText('Changed outside the cockpit')).toBeTruthy();
    // The unsigned edit is not what the proxy enforces: it keeps the version the owner saved.
    expect(within(web).getByText(/^Not in force — the proxy keeps enforcing version 1\./)).toBeTruthy();
    expect(within(files).queryByText(/Not in force/)).toBeNull();
    const broken = item('broken.yaml');
    expect(within(broken).getByText('Does not load')).toBeTruthy();
    expect(within(broken).getByText('No saved version')).toBeTruthy();

    const open = screen.getByRole('button', { name: 'Open files.yaml' });
    fireEvent.click(open);
    await flushAll();
    expect(harness.transport.callsTo('policies.read')).toEqual([{ path: POLICY_PATH }]);
    expect((screen.getByRole('button', { name: 'Open files.yaml' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByRole('button', { name: 'Open files.yaml' }).textContent).toBe('In the editor');
    expect((screen.getByRole('button', { name: 'Open web.yaml' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('adopts or reverts a policy changed outside, saying what each does and why Revert may be unavailable', async () => {
    const harness = await renderPolicies(<PolicyList />, library(), null);
    expect(screen.getByRole('button', { name: 'Adopt web.yaml', description: 'Signs the file as it is now with your owner key' })).toBeTruthy();
    const revertBroken = screen.getByRole('button', { name: 'Revert broken.yaml', description: 'No saved version to revert to' }) as HTMLButtonElement;
    expect(revertBroken.disabled).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Revert web.yaml', description: 'Writes the last saved version back over it' }));
    expect(within(item('web.yaml')).getByText('Reverting…')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Adopt broken.yaml' }) as HTMLButtonElement).disabled).toBe(true);
    await flushAll();
    expect(harness.transport.callsTo('policies.restore')).toEqual([{ id: 2 }]);
    expect(within(item('web.yaml')).getByRole('status').textContent).toBe('Reverted to version 1 (now version 2, signed)');
    expect(within(item('web.yaml')).queryByText('Changed outside the cockpit')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Adopt broken.yaml' }));
    await flushAll();
    expect(harness.transport.callsTo('policies.adopt')).toEqual([{ path: BROKEN }]);
    expect(within(item('broken.yaml')).getByRole('status').textContent).toBe('Adopted as version 1, signed');
  });

  it('shows a failed adopt with the runtime message', async () => {
    const harness = await renderPolicies(<PolicyList />, library(), null);
    harness.transport.handle('policies.adopt', () => ({ ok: false, error: { code: 'E_INVALID_ARGS', message: 'the draft does not load, so it cannot be saved' } }));
    fireEvent.click(screen.getByRole('button', { name: 'Adopt web.yaml' }));
    await flushAll();
    expect(within(item('web.yaml')).getByRole('alert').textContent).toBe('Could not adopt it: the draft does not load, so it cannot be saved (E_INVALID_ARGS)');
  });

  it('says when there are no policies, and why the list could not be loaded', async () => {
    const harness = await renderPolicies(<PolicyList />, new PolicyDisk({}), null);
    expect(screen.getByRole('region', { name: 'Policy files' }).textContent).toMatch(/No policies yet/);
    harness.transport.handle('policies.list', () => ({ ok: false, error: { code: 'E_DB_FAILURE', message: 'database is locked' } }));
    act(() => harness.cockpit.actions.navigate('servers'));
    act(() => harness.cockpit.actions.navigate('policies'));
    await flushAll();
    expect(screen.getByRole('alert').textContent).toBe('Could not load the policies: database is locked (E_DB_FAILURE)');
  });
});
