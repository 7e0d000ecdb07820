import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { POLICY_PATH, POLICY_TEMPLATES, PolicyDisk, VALID_POLICY } from '../../../testing/policy-fixtures.js';
import { flushAll, renderPolicies, typeDraft } from '../../../testing/render-policies.js';
import { PoliciesPage } from '../PoliciesPage/PoliciesPage.js';

afterEach(cleanup);

const gallery = () => screen.getByRole('region', { name: 'New policy from a template' });
const nameBox = () => within(gallery()).getByRole('textbox', { name: 'Name of the new policy' }) as HTMLInputElement;
const createButton = () => within(gallery()).getByRole('button', { name: 'Create and open' }) as HTMLButtonElement;

async function shown(disk = new PolicyDisk(), open: string | null = null) {
  const harness = await renderPolicies(<PoliciesPage />, disk, open);
  fireEvent.click(within(gallery()).getByRole('button', { name: 'Show the templates' }));
  await flushAll();
  return harness;
}

describe('TemplateGallery', () => {
  it('loads the templates when first shown: each with its server, summary, suite size and a preview of its text', async () => {
    const harness = await shown();
    expect(harness.transport.callsTo('policies.templates')).toHaveLength(1);
    const choices = within(gallery()).getAllByRole('radio');
    expect(choices.map((radio) => (radio as HTMLInputElement).value)).toEqual(['filesystem-read-only', 'github']);
    expect(within(gallery()).getByRole('radio', { name: 'GitHub', description: /Reading is allowed; writes ask. Its test suite has 24 cases./ })).toBeTruthy();
    expect(within(gallery()).getByLabelText('The policy of Filesystem, read-only').textContent).toBe(POLICY_TEMPLATES[0]!.policyText);
    fireEvent.click(within(gallery()).getByRole('button', { name: 'Hide the templates' }));
    fireEvent.click(within(gallery()).getByRole('button', { name: 'Show the templates' }));
    await flushAll();
    expect(harness.transport.callsTo('policies.templates')).toHaveLength(1);
  });

  it('creates a policy from the chosen template, says what was made, lists it and opens it in the editor', async () => {
    const harness = await shown();
    expect(createButton().disabled).toBe(true);
    fireEvent.click(within(gallery()).getByRole('radio', { name: 'GitHub' }));
    expect(nameBox().value).toBe('github');
    fireEvent.change(nameBox(), { target: { value: 'work-github' } });
    expect(within(gallery()).getByText('Saved as policies/work-github.yaml in your Silas home, with work-github.suite.json beside it')).toBeTruthy();
    fireEvent.click(createButton());
    await flushAll();
    expect(harness.transport.callsTo('policies.create')).toEqual([{ name: 'work-github', template: 'github' }]);
    expect(within(gallery()).getByRole('status').textContent).toBe('Created work-github.yaml from "GitHub", signed as version 1; its test suite (work-github.suite.json, 24 cases) is beside it');
    const created = '/home/ada/.silas/policies/work-github.yaml';
    expect(within(screen.getByRole('list', { name: 'Policies' })).getAllByRole('listitem').some((item) => item.textContent?.includes('work-github.yaml'))).toBe(true);
    expect(harness.store.getState().policyEditor.open).toMatchObject({ path: created });
    expect(harness.store.getState().policyEditor.open?.draft).toContain('name: work-github');
  });

  it('says what is wrong with a name before asking, and shows the refusal of a name already taken', async () => {
    const harness = await shown();
    fireEvent.click(within(gallery()).getByRole('radio', { name: 'Filesystem, read-only' }));
    fireEvent.change(nameBox(), { target: { value: 'Bad Name' } });
    expect(nameBox().getAttribute('aria-invalid')).toBe('true');
    expect(within(gallery()).getByText('Lower-case letters, digits and dashes, starting and ending with a letter or digit')).toBeTruthy();
    expect(createButton().disabled).toBe(true);
    fireEvent.change(nameBox(), { target: { value: 'files' } });
    fireEvent.click(createButton());
    await flushAll();
    expect(within(gallery()).getByRole('alert').textContent).toBe(`${POLICY_PATH} already exists; open that policy from the list, or choose another name (E_CONFLICT)`);
    expect(harness.store.getState().policyEditor.open).toBeNull();
  });

  it('asks about an unsaved draft before opening the new policy; the policy is made either way', async () => {
    const harness = await shown(new PolicyDisk(), POLICY_PATH);
    typeDraft(harness, `${VALID_POLICY}# mine\n`);
    fireEvent.click(within(gallery()).getByRole('radio', { name: 'GitHub' }));
    fireEvent.click(createButton());
    await flushAll();
    expect(harness.disk.files.has('/home/ada/.silas/policies/github.yaml')).toBe(true);
    const dialog = screen.getByRole('alertdialog', { name: 'Unsaved changes' });
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Keep editing' })));
    await flushAll();
    expect(harness.store.getState().policyEditor.open).toMatchObject({ path: POLICY_PATH, draft: `${VALID_POLICY}# mine\n` });
  });
});
