import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { formatLocalTime } from '../../activity/audit-format.js';
import { PolicyErrorAlert } from './PolicyErrorAlert.js';

afterEach(cleanup);

describe('PolicyErrorAlert', () => {
  it('says the edit was rejected, that the last valid policy stays in force, and lists each FILE:LINE:COL error', () => {
    const errors = ['/home/ada/files.yaml:7:5 spec.tool_rules[0]: unknown key "alow_args"', '/home/ada/files.yaml:9:1 spec: bad indentation'];
    render(<PolicyErrorAlert error={{ at: '2026-03-01T09:00:00.000Z', errors }} />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Policy edit rejected — the last valid policy stays in force');
    expect(alert.textContent).toContain(`since ${formatLocalTime('2026-03-01T09:00:00.000Z')}`);
    const list = within(alert).getByRole('list', { name: 'Policy errors' });
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual(errors);
  });

  it('still warns when the runtime recorded no error lines', () => {
    render(<PolicyErrorAlert error={{ at: '2026-03-01T09:00:00.000Z', errors: [] }} />);
    expect(screen.getByRole('alert').textContent).toContain('Policy edit rejected');
    expect(screen.queryByRole('list')).toBeNull();
  });
});
