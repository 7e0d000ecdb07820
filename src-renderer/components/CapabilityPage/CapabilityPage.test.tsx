import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { CapabilityPage } from './CapabilityPage.js';

afterEach(cleanup);

describe('CapabilityPage', () => {
  it('names the page in an h1 and says which capability fills it', () => {
    render(
      <CapabilityPage title="Policies" capability="the AIP policy editor">
        Edit the AgentPolicy every proxy enforces.
      </CapabilityPage>,
    );
    expect(screen.getByRole('heading', { level: 1, name: 'Policies' })).toBeTruthy();
    expect(screen.getByRole('region', { name: 'Policies' }).textContent).toContain('Arrives with the AIP policy editor.');
    expect(screen.getByText('Edit the AgentPolicy every proxy enforces.')).toBeTruthy();
  });
});
