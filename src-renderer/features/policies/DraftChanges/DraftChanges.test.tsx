import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stubRangeLayout } from '../../../testing/codemirror-dom.js';
import { POLICY_PATH, PolicyDisk, VALID_POLICY } from '../../../testing/policy-fixtures.js';
import { flushAll, renderPolicies, typeDraft } from '../../../testing/render-policies.js';
import { DraftChanges } from './DraftChanges.js';

beforeAll(stubRangeLayout);
afterEach(cleanup);

describe('DraftChanges', () => {
  it('shows the draft against the policy in force, and follows edits of the draft', async () => {
    const harness = await renderPolicies(<DraftChanges />, new PolicyDisk({ [POLICY_PATH]: VALID_POLICY }));
    const region = screen.getByRole('region', { name: 'Changes from the policy in force' });
    fireEvent.click(within(region).getByRole('button', { name: 'Show the changes' }));
    expect(within(region).getByLabelText('The policy in force (−) against the draft (+): identical')).toBeTruthy();
    typeDraft(harness, `${VALID_POLICY}# a new line\n`);
    await flushAll();
    expect(within(region).getByLabelText('The policy in force (−) against the draft (+): 0 removed, 1 added')).toBeTruthy();
  });
});
