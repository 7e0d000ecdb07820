import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { formatLocalTime } from '../../activity/audit-format.js';
import { StartFailureAlert } from './StartFailureAlert.js';

afterEach(cleanup);

describe('StartFailureAlert', () => {
  it('says the server could not start, why and the fix, labelled as reported by the proxy', () => {
    const at = '2026-03-01T09:00:00.000Z';
    render(<StartFailureAlert failure={{ at, client: 'claude-desktop', reason: 'the OS keyring is not reachable', fix: 'unlock the keyring' }} />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Could not start');
    expect(alert.textContent).toContain(`reported by the proxy started by claude-desktop at ${formatLocalTime(at)}`);
    expect(alert.textContent).toContain('Why: the OS keyring is not reachable');
    expect(alert.textContent).toContain('Fix: unlock the keyring');
  });

  it('shows markup in the report as text, and caps a long report', () => {
    render(<StartFailureAlert failure={{ at: '2026-03-01T09:00:00.000Z', client: null, reason: `<img src=x onerror=alert(1)>${'x'.repeat(2000)}`, fix: '' }} />);
    const alert = screen.getByRole('alert');
    expect(alert.querySelector('img')).toBeNull();
    expect(alert.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(alert.textContent!.length).toBeLessThan(900);
    expect(alert.textContent).not.toContain('Fix:');
  });
});
