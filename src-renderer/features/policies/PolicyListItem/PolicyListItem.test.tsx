import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { policyStatus } from '../../../testing/policy-fixtures.js';
import { PolicyListItem } from './PolicyListItem.js';

afterEach(cleanup);

const noop = () => undefined;

describe('PolicyListItem', () => {
  it('a file over the size cap says so, with the size, the cap and what to do (docs/policy-editor.md, Limits)', () => {
    const problem = 'the policy file is 1048576 bytes; the cap is 262144 bytes (256 KiB): a policy needs far less, so remove what it does not use';
    const status = policyStatus({ loads: false, hash: null, modifiedOutside: true, textSha256: null, problem });
    render(
      <ul aria-label="Policies">
        <PolicyListItem policy={status} open={false} busy={false} acting={null} message={null} onOpen={noop} onAdopt={noop} onRevert={noop} />
      </ul>,
    );
    expect(screen.getByText('Does not load')).toBeTruthy();
    expect(screen.getByText(problem)).toBeTruthy();
  });
});
