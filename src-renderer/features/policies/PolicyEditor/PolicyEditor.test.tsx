import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stubRangeLayout } from '../../../testing/codemirror-dom.js';
import { POLICY_PATH, PolicyDisk, TYPO_POLICY, VALID_POLICY } from '../../../testing/policy-fixtures.js';
import { afterDebounce, renderPolicies, typeDraft } from '../../../testing/render-policies.js';
import { PolicyEditor } from './PolicyEditor.js';

beforeAll(stubRangeLayout);
afterEach(cleanup);

const problems = () => screen.getByRole('region', { name: 'Problems' });

describe('PolicyEditor', () => {
  it('shows the open policy in CodeMirror with the runtime\'s problems marked and listed', async () => {
    await renderPolicies(<PolicyEditor />, new PolicyDisk({ [POLICY_PATH]: TYPO_POLICY }));
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Editing files.yaml');
    expect(screen.getByRole('region', { name: 'Editing files.yaml' }).textContent).toContain('Unsigned');
    expect(await screen.findByText('1 problem marked in the editor')).toBeTruthy();
    const editor = document.querySelector('.policy-code__host')!.shadowRoot!.querySelector('[aria-label="Policy YAML"]');
    expect(editor?.textContent).toContain('alowed_tools: [read_file]');
    expect(screen.getByText('Does not load: 1 error, checked in 1.3 ms')).toBeTruthy();
    expect(within(problems()).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'line 6, column 3: unknown key "alowed_tools" in spec (did you mean "allowed_tools"?)',
    ]);
    // Unchanged since read: there is nothing to save, even though the file has a problem.
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'No changes to save' })).toBeTruthy();
  });

  it('keeps the last problems, greyed, while the edited draft is being checked, then shows the new ones', async () => {
    const harness = await renderPolicies(<PolicyEditor />, new PolicyDisk({ [POLICY_PATH]: TYPO_POLICY }));
    await screen.findByText('1 problem marked in the editor');
    typeDraft(harness, VALID_POLICY);
    expect(problems().getAttribute('aria-busy')).toBe('true');
    expect(within(problems()).getAllByRole('listitem')).toHaveLength(1);
    expect(screen.getByText('Checking the draft…', { selector: '.policy-editor__check' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'Checking the draft…' })).toBeTruthy();
    await afterDebounce();
    expect(problems().getAttribute('aria-busy')).toBe('false');
    expect(problems().textContent).toContain('No problems: the draft loads.');
    expect(await screen.findByText('Nothing marked in the editor')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Save and sign' })).toHaveProperty('disabled', false);
  });

  it('closes', async () => {
    const harness = await renderPolicies(<PolicyEditor />);
    fireEvent.click(screen.getByRole('button', { name: 'Close the editor' }));
    expect(harness.store.getState().policyEditor.open).toBeNull();
  });
});
